import { buckets, queues, tables } from "#shared/definitions/index.ts";

/** Physical names of the local resources; the CDK stack lets CloudFormation name its own. */
export const localPrefix = "platen-local";

export const localTableName = (id: string) => `${localPrefix}-${id}`;
export const localBucketName = (id: string) => `${localPrefix}-${id}`;
export const localQueueName = (id: string) => `${localPrefix}-${id}`;

/**
 * The environment the handlers read (shared/aws/config.ts): the same variable names
 * the CDK construct sets on every Lambda, pointing at the local emulators.
 */
export function localEnvironment(opts: {
  dynamodbEndpoint: string;
  awsEndpoint: string;
  queueUrls: Record<string, string>;
  baseUrl: string;
  siteUrl: string;
  authUrl: string;
}): Record<string, string> {
  // Presigned S3 URLs name the gateway, which serves them as S3 would (presigned-s3.ts).
  const presignEndpoint = `${new URL(opts.baseUrl).origin}/__s3`;
  const env: Record<string, string> = {
    PLATEN_ENV: process.env.PLATEN_ENV ?? "local",
    ...QUIET_SDK_NOTICE,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    DYNAMODB_ENDPOINT: opts.dynamodbEndpoint,
    S3_ENDPOINT: opts.awsEndpoint,
    S3_PRESIGN_ENDPOINT: presignEndpoint,
    SQS_ENDPOINT: opts.awsEndpoint,
    PLATEN_BASE_URL: opts.baseUrl,
    PLATEN_SITE_URL: opts.siteUrl,
    PLATEN_AUTH_URL: opts.authUrl,
  };
  for (const t of Object.values(tables)) env[t.envVar] = localTableName(t.id);
  for (const b of Object.values(buckets)) env[b.envVar] = localBucketName(b.id);
  for (const q of Object.values(queues)) {
    env[q.envVar] = opts.queueUrls[q.id] ?? "";
    env[q.dlq.envVar] = opts.queueUrls[q.dlq.id] ?? "";
  }
  return env;
}

/** Node 20 is what these machines run; the SDK's end-of-support notice is not the operator's problem. */
const QUIET_SDK_NOTICE = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" };

/** Silences that notice in this process before its first SDK client exists (local entry points). */
export function quietSdkNotice(): void {
  Object.assign(process.env, QUIET_SDK_NOTICE);
}
