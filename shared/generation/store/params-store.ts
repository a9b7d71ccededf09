import { s3 } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";

/**
 * Async params live in S3, one object per file (shared/limits/README.md#known-platform-limits: SQS messages are
 * ≤ 1 MiB and DynamoDB items ≤ 400 KB, params may be 1,000,000 bytes). They expire with the files bucket.
 */
/**
 * Small params (the usual invoice is 2–3 KB) ride inside the file record: one write at
 * acceptance and no S3 round trip per file in the worker. Larger ones go to S3.
 */
export const INLINE_PARAMS_BYTES = 8 * 1024;

export const paramsObjectKey = (workspaceId: string, requestId: string, fileId: string) =>
  `params/${workspaceId}/${requestId}/${fileId}.json`;

export async function putParams(key: string, params: Record<string, unknown>): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(
    new sdk.PutObjectCommand({
      Bucket: config().buckets.files,
      Key: key,
      Body: JSON.stringify(params),
      ContentType: "application/json",
    }),
  );
}

export async function getParams(key: string): Promise<Record<string, unknown>> {
  const { client, sdk } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: config().buckets.files, Key: key }));
  return JSON.parse(await out.Body!.transformToString("utf8")) as Record<string, unknown>;
}

/** Removes a settled file's params (S3 delete is idempotent: a missing key is no error). */
export async function deleteParams(key: string): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(new sdk.DeleteObjectCommand({ Bucket: config().buckets.files, Key: key }));
}
