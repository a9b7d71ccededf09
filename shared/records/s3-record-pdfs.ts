import { s3 } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import type { RecordPdfs } from "./record-store.ts";

const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
};

/**
 * The records bucket (S3 Object Lock, compliance mode): each PDF put with its own retain-until date. The key
 * carries the bytes' hash, so an object already there holds these very bytes and is left as it is (a locked
 * object cannot be written again).
 */
const bucket = () => config().buckets.records;

export function s3RecordPdfs(): RecordPdfs {
  return {
    async keep(key, pdf, retainUntil) {
      const { client, sdk } = await s3();
      const there = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket(), Key: key })).then(
        () => true,
        (err: unknown) => {
          if (isMissing(err)) return false;
          throw err;
        },
      );
      if (there) return;
      await putLocked(key, pdf, retainUntil).catch(async (err: unknown) => {
        // A concurrent keep of the same file put it first: the object is locked now, and holds these bytes.
        const now = await read(key);
        if (!now?.equals(pdf)) throw err;
      });
    },
    read,
  };
}

async function putLocked(key: string, pdf: Buffer, retainUntil: Date) {
  const { client, sdk } = await s3();
  return client.send(
    new sdk.PutObjectCommand({
      Bucket: bucket(),
      Key: key,
      Body: pdf,
      ContentType: "application/pdf",
      ObjectLockMode: "COMPLIANCE",
      ObjectLockRetainUntilDate: retainUntil,
      // S3 requires an integrity check on a put with Object Lock.
      ChecksumAlgorithm: "SHA256",
    }),
  );
}

async function read(key: string): Promise<Buffer | undefined> {
  try {
    const { client, sdk } = await s3();
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket(), Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}
