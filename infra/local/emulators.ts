import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import dynalite from "dynalite";
import { buildApp } from "fauxqs";
import { cacheDynaliteTableDescriptions } from "./dynalite-table-cache.ts";
import { persistentS3 } from "./persistent-s3-store.ts";
import { prebuiltEntryUrl } from "./prebuilt.ts";

export interface Emulators {
  dynamodbEndpoint: string;
  awsEndpoint: string;
  stop(): Promise<void>;
}

/**
 * DynamoDB (dynalite on LevelDB under `<dataDir>/dynamodb`) and, on one AWS endpoint, SQS
 * (fauxqs, in memory) and S3 (persistent-s3-store.ts, files under `<dataDir>/s3`), on
 * 127.0.0.1 and free ports, in this thread. `startEmulators` runs them on a worker thread.
 */
export async function startEmulatorsHere(dataDir: string): Promise<Emulators> {
  mkdirSync(join(dataDir, "dynamodb"), { recursive: true });
  cacheDynaliteTableDescriptions();
  const dynamo = dynalite({ path: join(dataDir, "dynamodb"), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    dynamo.once("error", reject);
    dynamo.listen(0, "127.0.0.1", () => resolve());
  });
  const dynamoPort = (dynamo.address() as AddressInfo).port;
  const s3 = persistentS3(join(dataDir, "s3"));
  const fauxqs = buildApp({ logger: false });
  await fauxqs.ready();
  // One endpoint, as the SDK clients are configured: requests for our buckets go to the S3
  // store, the rest (SQS) to fauxqs through Fastify's public `routing`.
  const aws = createServer((req, res) => {
    if (!s3.handles(req)) return fauxqs.routing(req, res);
    s3.handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(`local S3 failed: ${err.message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    aws.once("error", reject);
    aws.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    dynamodbEndpoint: `http://127.0.0.1:${dynamoPort}`,
    awsEndpoint: `http://127.0.0.1:${(aws.address() as AddressInfo).port}`,
    stop: async () => {
      aws.closeAllConnections();
      await new Promise<void>((resolve) => aws.close(() => resolve()));
      await fauxqs.close();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    },
  };
}

/**
 * The emulators on their own worker thread: their work (LevelDB, S3 bodies, SQS) runs
 * beside the handlers' event loop instead of queueing behind it, as separate services
 * would in AWS. The thread dies with the process, so a crash takes nothing half-written
 * beyond what a crash of the services would.
 */
export async function startEmulators(dataDir: string): Promise<Emulators> {
  const prebuilt = prebuiltEntryUrl("infra/local/emulator-thread.ts");
  // A worker does not inherit the tsx loader of `node --import tsx`: register it first.
  const entry = new URL("./emulator-thread.ts", import.meta.url).href;
  const bootstrap = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  const worker = prebuilt
    ? new Worker(new URL(prebuilt), { workerData: { dataDir } })
    : new Worker(bootstrap, { eval: true, workerData: { dataDir } });
  const ready = await new Promise<{ dynamodbEndpoint: string; awsEndpoint: string }>((resolve, reject) => {
    worker.once("message", (m: { ready?: { dynamodbEndpoint: string; awsEndpoint: string }; error?: string }) =>
      m.ready ? resolve(m.ready) : reject(new Error(m.error ?? "emulators failed to start")),
    );
    worker.once("error", reject);
  });
  return {
    ...ready,
    stop: async () => {
      const stopped = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage("stop");
      await stopped;
    },
  };
}
