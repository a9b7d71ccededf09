import { type BucketId, buckets, DEFAULT_FILE_RETENTION_DAYS } from "#shared/definitions/buckets.ts";
import { type QueueDefinition, type QueueId, queues } from "#shared/definitions/queues.ts";
import { type TableId, tables } from "#shared/definitions/tables.ts";
import { ConfigError, environment, positiveInt } from "#shared/config/settings.ts";

/**
 * Configuration of the AWS resources and URLs. A missing variable fails fast with a message
 * naming it (Gotenberg habit); the parser of the other settings is shared/config/settings.ts.
 *
 * Resource names come from the variables the definitions name (`envVar` of
 * shared/definitions): TABLE_WORKSPACES, TABLE_DESIGNS, TABLE_REQUESTS, TABLE_FILES,
 * TABLE_USAGE, TABLE_WEBHOOKS, TABLE_OAUTH, TABLE_IDENTITY, TABLE_RECORDS, BUCKET_DESIGNS, BUCKET_FILES, BUCKET_RECORDS,
 * QUEUE_RENDER, QUEUE_RENDER_DLQ, QUEUE_WEBHOOK and QUEUE_WEBHOOK_DLQ today; a table, bucket
 * or queue added there is read here without a change (test/unit/definitions.test.ts).
 */
export interface PlatenConfig {
  env: string;
  region: string;
  endpoints: { dynamodb?: string; s3?: string; sqs?: string };
  tables: Record<TableId, string>;
  buckets: Record<BucketId, string>;
  /** A queue's URL by id, its dead-letter queue's by `<id>Dlq` (`renderDlq`); empty when unset. */
  queues: Record<QueueId | `${QueueId}Dlq`, string>;
  baseUrl: string;
  authUrl: string;
  siteUrl: string;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new ConfigError(`Missing environment variable ${name}: set it (npm start sets it locally).`);
  return value;
}

/** `render-dlq` → `renderDlq`: the key of a queue id in `PlatenConfig.queues`. */
const queueKey = (id: string) => id.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** Each definition's `envVar`, read by `read`, under the definition's id. */
function namesOf<Id extends string>(defs: Record<Id, { envVar: string }>, read: (name: string) => string) {
  return Object.fromEntries(
    Object.entries<{ envVar: string }>(defs).map(([id, def]) => [id, read(def.envVar)]),
  ) as Record<Id, string>;
}

/** Queue URLs are optional: a function that sends to no queue runs without them. */
function queueUrls(): PlatenConfig["queues"] {
  const urls = (Object.values(queues) as QueueDefinition[]).flatMap((q) => [
    [queueKey(q.id), process.env[q.envVar] ?? ""],
    [queueKey(q.dlq.id), process.env[q.dlq.envVar] ?? ""],
  ]);
  return Object.fromEntries(urls) as PlatenConfig["queues"];
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
    tables: namesOf(tables, required),
    buckets: namesOf(buckets, required),
    queues: queueUrls(),
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

/** `POWERTOOLS_SERVICE_NAME`: the service of every log line and metric (`platen-<stage>` deployed). */
export const serviceName = (): string => process.env.POWERTOOLS_SERVICE_NAME ?? "platen";

/**
 * `S3_PRESIGN_ENDPOINT`: the host presigned URLs name. Unset in AWS (the SDK's own S3
 * endpoint); locally the gateway's `/__s3`.
 */
export const presignEndpoint = (): string | undefined => process.env.S3_PRESIGN_ENDPOINT || undefined;

/**
 * `PLATEN_FILE_RETENTION_DAYS`: days a workspace's files are kept (a positive integer), by
 * default the files bucket's lifecycle (shared/definitions/buckets.ts). Read per request, so
 * tests may change it.
 */
export function fileRetentionDays(env = environment()): number {
  return positiveInt(env, "PLATEN_FILE_RETENTION_DAYS") ?? DEFAULT_FILE_RETENTION_DAYS;
}

/** Where the identity key seeds are: a file (`PLATEN_IDENTITY_KEYS_FILE`, locally) or a secret (AWS). */
export interface IdentityKeySource {
  file?: string;
  secretId?: string;
  /** `AWS_REGION` as set; unset leaves the SDK its own region lookup. */
  region?: string;
}

export function identityKeySource(): IdentityKeySource {
  return {
    file: process.env.PLATEN_IDENTITY_KEYS_FILE || undefined,
    secretId: process.env.PLATEN_IDENTITY_SECRET_ID || undefined,
    region: process.env.AWS_REGION,
  };
}
