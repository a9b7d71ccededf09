/**
 * Configuration, read once from the environment. A missing variable fails fast with a
 * message naming it (Gotenberg habit). The names match `envVar` of shared/definitions
 * (test/unit/definitions.test.ts checks they agree).
 */
export interface PlatenConfig {
  env: string;
  region: string;
  endpoints: { dynamodb?: string; s3?: string; sqs?: string };
  tables: {
    workspaces: string;
    designs: string;
    requests: string;
    files: string;
    usage: string;
    webhooks: string;
    oauth: string;
    identity: string;
  };
  buckets: { designs: string; files: string };
  queues: { render: string; renderDlq: string; webhook: string; webhookDlq: string };
  baseUrl: string;
  authUrl: string;
  siteUrl: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new ConfigError(`Missing environment variable ${name}: set it (npm start sets it locally).`);
  return value;
}

function loadConfig(): PlatenConfig {
  return {
    // Unset means the strict rules (only `npm start` and the test stack set `local`).
    env: process.env.PLATEN_ENV ?? "production",
    region: process.env.AWS_REGION ?? "us-east-1",
    endpoints: {
      dynamodb: process.env.DYNAMODB_ENDPOINT,
      s3: process.env.S3_ENDPOINT,
      sqs: process.env.SQS_ENDPOINT,
    },
    tables: {
      workspaces: required("TABLE_WORKSPACES"),
      designs: required("TABLE_DESIGNS"),
      requests: required("TABLE_REQUESTS"),
      files: required("TABLE_FILES"),
      usage: required("TABLE_USAGE"),
      webhooks: required("TABLE_WEBHOOKS"),
      oauth: required("TABLE_OAUTH"),
      identity: required("TABLE_IDENTITY"),
    },
    buckets: { designs: required("BUCKET_DESIGNS"), files: required("BUCKET_FILES") },
    queues: {
      render: process.env.QUEUE_RENDER ?? "",
      renderDlq: process.env.QUEUE_RENDER_DLQ ?? "",
      webhook: process.env.QUEUE_WEBHOOK ?? "",
      webhookDlq: process.env.QUEUE_WEBHOOK_DLQ ?? "",
    },
    baseUrl: required("PLATEN_BASE_URL").replace(/\/$/, ""),
    authUrl: (process.env.PLATEN_AUTH_URL ?? required("PLATEN_BASE_URL")).replace(/\/$/, ""),
    siteUrl: (process.env.PLATEN_SITE_URL ?? required("PLATEN_BASE_URL")).replace(/\/$/, ""),
  };
}

let cached: PlatenConfig | undefined;

/** The process configuration (read on first use, then reused by warm invocations). */
export function config(): PlatenConfig {
  cached ??= loadConfig();
  return cached;
}
