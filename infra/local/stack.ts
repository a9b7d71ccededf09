import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { systemClock } from "#shared/clock.ts";
import { recoverUnfinishedRequests } from "#shared/generation/async/index.ts";
import { DEFAULT_RETRY_SECONDS, dropAllRenderLeases } from "#shared/generation/scheduling/index.ts";
import { ensureLocalKeyFile } from "#shared/identity/keys.ts";
import { functions, type QueueDefinition, queues } from "#shared/definitions/index.ts";
import { createLocalResources } from "./create-resources.ts";
import { startEmulators } from "./emulators.ts";
import { startGateway } from "./gateway.ts";
import { lambdaContext, loadHandler } from "./load-handler.ts";
import { localEnvironment, quietSdkNotice } from "./resource-names.ts";
import { claimDataDir, removeRuntime, writeRuntime } from "./runtime-file.ts";
import { type LocalJson, seedOrRefresh } from "./seed.ts";
import { type Poller, startSqsPoller } from "./sqs-poller.ts";
import { startSweeper } from "./sweeper.ts";
import { thumbnailRenderer } from "#shared/authoring/thumbnails.ts";

export interface LocalStackOptions {
  port: number;
  dataDir: string;
  testHooks?: boolean;
  timeoutScale?: number;
  visibilityScale?: number;
  /** Seconds between sweeps (default: the sweep schedule's). */
  sweepSeconds?: number;
  log?: (msg: string) => void;
}

export interface LocalStack {
  localJson: LocalJson;
  localJsonPath: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Brings up the whole service in this process: emulators, resources from the shared
 * definitions, the gateway, SQS pollers for every consumer that exists, and seed data.
 */
export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  quietSdkNotice();
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  claimDataDir(dataDir);
  try {
    return await bringUp(dataDir, opts);
  } catch (err) {
    removeRuntime(dataDir);
    throw err;
  }
}

async function bringUp(dataDir: string, opts: LocalStackOptions): Promise<LocalStack> {
  const log = opts.log ?? (() => {});
  const emulators = await startEmulators(dataDir);
  log(`emulators up: dynamodb ${emulators.dynamodbEndpoint}, sqs/s3 ${emulators.awsEndpoint}`);
  const endpoints = { dynamodb: emulators.dynamodbEndpoint, aws: emulators.awsEndpoint };
  const queueUrls = await createLocalResources(endpoints, { visibilityScale: opts.visibilityScale });
  // Listening from here on, but answering 503 until local.json is written (readiness).
  const gateway = await startGateway({ port: opts.port, testHooks: opts.testHooks, timeoutScale: opts.timeoutScale });
  writeRuntime(dataDir, { pid: process.pid, port: gateway.port });
  const origin = `http://localhost:${gateway.port}`;
  // Identity keys are generated once per data dir and kept (tokens survive restarts).
  const identityKeysFile = join(dataDir, "identity-keys.json");
  ensureLocalKeyFile(identityKeysFile);
  const urls = { apiBaseUrl: `${origin}/v1`, authUrl: origin, siteUrl: origin };
  Object.assign(
    process.env,
    localEnvironment({
      ...emulators,
      queueUrls,
      baseUrl: urls.apiBaseUrl,
      siteUrl: urls.siteUrl,
      authUrl: urls.authUrl,
    }),
    // Signing identities' keys are sealed with a key file of the data dir (KMS in AWS; key-sealing.ts).
    { PLATEN_IDENTITY_KEYS_FILE: identityKeysFile, PLATEN_SIGNING_KEY_FILE: join(dataDir, "signing-key") },
    scaledRetry(opts.visibilityScale ?? 1),
  );
  // The renders of the process before this one died with it: their leases go (fair-render.ts).
  await dropAllRenderLeases();
  const pollers = await startPollers(emulators.awsEndpoint, queueUrls);
  // fauxqs lost its messages with the last process: put unfinished files back on the queue.
  // Its claims of page counts died with it too: they are taken over now, not after the takeover age.
  const requeued = await recoverUnfinishedRequests(new Date(Date.now() + 60_000).toISOString(), systemClock, {
    claimedBefore: systemClock.now().toISOString(),
  });
  if (requeued) log(`re-queued ${requeued} unfinished file(s) from before the restart`);
  const sweeper = startSweeper(opts.sweepSeconds);
  const localJsonPath = join(dataDir, "local.json");
  const localJson = await seedOrRefresh(localJsonPath, urls, {
    clock: systemClock,
    renderThumbnail: thumbnailRenderer(),
    log,
  });
  // Application keys and seeded passwords: readable by this user only. Written aside with the
  // mode and renamed over, so an older 0644 file never holds the new keys, even for a moment.
  writeFileSync(`${localJsonPath}.tmp`, `${JSON.stringify(localJson, null, 2)}\n`, { mode: 0o600 });
  chmodSync(`${localJsonPath}.tmp`, 0o600); // a .tmp left by a crash keeps its old mode
  renameSync(`${localJsonPath}.tmp`, localJsonPath);
  writeRuntime(dataDir, { pid: process.pid, port: gateway.port, endpoints, queueUrls, urls });
  gateway.markReady();
  return {
    localJson,
    localJsonPath,
    port: gateway.port,
    stop: async () => {
      await gateway.close();
      await Promise.all([...pollers.map((p) => p.stop()), sweeper.stop()]);
      await thumbnailRenderer.close();
      await closeSharedRenderer();
      await emulators.stop();
      removeRuntime(dataDir);
    },
  };
}

/**
 * A failed render's retries wait in proportion to the render queue's visibility time-out: scaled with it
 * (render-queue.ts `retryDelaySeconds`), unless the environment sets the first wait itself.
 */
function scaledRetry(visibilityScale: number): Record<string, string> {
  if (visibilityScale === 1 || process.env.PLATEN_RENDER_RETRY_SECONDS) return {};
  return { PLATEN_RENDER_RETRY_SECONDS: String(DEFAULT_RETRY_SECONDS * visibilityScale) };
}

/** The handlers' Chromium pool, if any handler started one: its browsers end with the stack. */
async function closeSharedRenderer(): Promise<void> {
  const { getRenderer, sharedRendererStats } = await import("#shared/render/renderer.ts");
  if (sharedRendererStats()) await getRenderer().close();
}

const LOCAL_MAX_CONCURRENCY = 4;

/** One poller per queue (and DLQ) whose consumer function exists in the definitions. */
async function startPollers(awsEndpoint: string, queueUrls: Record<string, string>): Promise<Poller[]> {
  const sqs = new SQSClient({
    region: "us-east-1",
    endpoint: awsEndpoint,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const pollers: Poller[] = [];
  const consumers = (Object.values(queues) as QueueDefinition[]).flatMap((q) => [
    { id: q.id, consumer: q.consumer as string, batchSize: q.batchSize, maxConcurrency: q.maxConcurrency },
    ...(q.dlq.consumer ? [{ id: q.dlq.id, consumer: q.dlq.consumer as string, batchSize: 10, maxConcurrency: 1 }] : []),
  ]);
  for (const c of consumers) {
    if (!(c.consumer in functions)) continue;
    const queueUrl = queueUrls[c.id]!;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }),
    );
    const handler = await loadHandler(c.consumer);
    const timeout = (functions as Record<string, { timeoutSeconds: number }>)[c.consumer]!.timeoutSeconds;
    pollers.push(
      startSqsPoller({
        name: c.consumer,
        sqs,
        queueUrl,
        queueArn: Attributes!.QueueArn!,
        batchSize: c.batchSize,
        // One machine: more concurrent batches than browsers only queues renders behind each other.
        maxConcurrency: Math.min(c.maxConcurrency, LOCAL_MAX_CONCURRENCY),
        handler,
        context: () => lambdaContext(c.consumer, timeout, crypto.randomUUID()),
      }),
    );
  }
  return pollers;
}
