import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import type { BucketId } from "#shared/definitions/buckets.ts";
import type { PageStore } from "./page-image-cache.ts";

/** The page cache in one of Platen's buckets; a missing object reads as undefined. */
export function s3PageStore(bucket: BucketId): PageStore {
  return {
    async get(key) {
      try {
        const out = await awsClients().s3.send(new GetObjectCommand({ Bucket: config().buckets[bucket], Key: key }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (err) {
        if ((err as { name?: string }).name === "NoSuchKey") return undefined;
        throw err;
      }
    },
    async put(key, body, contentType) {
      await awsClients().s3.send(
        new PutObjectCommand({ Bucket: config().buckets[bucket], Key: key, Body: body, ContentType: contentType }),
      );
    },
  };
}
