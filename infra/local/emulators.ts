import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import dynalite from "dynalite";
import { buildApp } from "fauxqs";
import { createPersistentS3Store } from "./persistent-s3-store.ts";

export interface Emulators {
  dynamodbEndpoint: string;
  awsEndpoint: string;
  stop(): Promise<void>;
}

/**
 * DynamoDB (dynalite on LevelDB under `<dataDir>/dynamodb`) and SQS + S3 (fauxqs, S3
 * persisted under `<dataDir>/s3`), both on 127.0.0.1 and free ports.
 */
export async function startEmulators(dataDir: string): Promise<Emulators> {
  mkdirSync(join(dataDir, "dynamodb"), { recursive: true });
  const dynamo = dynalite({ path: join(dataDir, "dynamodb"), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    dynamo.once("error", reject);
    dynamo.listen(0, "127.0.0.1", () => resolve());
  });
  const dynamoPort = (dynamo.address() as AddressInfo).port;
  const s3Store = await createPersistentS3Store(join(dataDir, "s3"));
  const fauxqs = buildApp({ logger: false, stores: { s3Store } as never });
  const listening = await fauxqs.listen({ port: 0, host: "127.0.0.1" });
  return {
    dynamodbEndpoint: `http://127.0.0.1:${dynamoPort}`,
    awsEndpoint: listening.replace("localhost", "127.0.0.1"),
    stop: async () => {
      await fauxqs.close();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    },
  };
}
