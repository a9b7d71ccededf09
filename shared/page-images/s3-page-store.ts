import { s3 } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import type { BucketId } from "#shared/definitions/buckets.ts";
import type { PageStore } from "./page-image-cache.ts";

/** The page cache in one of Platen's buckets; a missing object reads as undefined. */
export function s3PageStore(bucket: BucketId): PageStore {
  return {
    async get(key) {
      try {
        const { client, sdk } = await s3();
        const out = await client.send(new sdk.GetObjectCommand({ Bucket: config().buckets[bucket], Key: key }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (err) {
        if ((err as { name?: string }).name === "NoSuchKey") return undefined;
        throw err;
      }
    },
    async put(key, body, contentType) {
      const { client, sdk } = await s3();
      await client.send(
        new sdk.PutObjectCommand({ Bucket: config().buckets[bucket], Key: key, Body: body, ContentType: contentType }),
      );
    },
  };
}
