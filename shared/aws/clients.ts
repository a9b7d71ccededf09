import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { S3Client } from "@aws-sdk/client-s3";
import type { SQSClient } from "@aws-sdk/client-sqs";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "./config.ts";
import { injectFaults } from "./fault-injection.ts";

/**
 * The SDK's clients, created once per container and reused by warm invocations (their
 * keep-alive connections and resolved credentials with them).
 */
export interface AwsClients {
  /** lib-dynamodb's document client: plain JavaScript values in and out. */
  ddb: DynamoDBDocumentClient;
}

/** An SDK package loaded on first use, with the container's client of it. */
export interface LazyClient<Sdk, Client> {
  sdk: Sdk;
  client: Client;
}
export type S3 = LazyClient<typeof import("@aws-sdk/client-s3"), S3Client>;
export type Sqs = LazyClient<typeof import("@aws-sdk/client-sqs"), SQSClient>;

let clients: AwsClients | undefined;

/** The SDK's logger middleware builds a redacted copy of every input and output for its (no-op) logger on each call. */
const withoutLogger = <C extends { middlewareStack: { remove(name: string): unknown } }>(client: C): C => {
  client.middlewareStack.remove("loggerMiddleware");
  return client;
};

/** Endpoints come from configuration: AWS, the local emulators or LocalStack alike. */
export function awsClients(): AwsClients {
  if (clients) return clients;
  const { region, endpoints } = config();
  // No `cacheMiddleware` here: the document client refuses it (its commands add their
  // marshalling middleware per instance).
  const dynamodb = withoutLogger(new DynamoDBClient({ region, endpoint: endpoints.dynamodb, maxAttempts: 3 }));
  clients = { ddb: DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } }) };
  // Fault-injection tests only (the local stack's test hooks arm the faults). A test hook, not
  // configuration: its switch is read here, beside the hook, not in config.ts; written out at each
  // client, as esbuild's define compiles `globalThis.__PLATEN_TEST_HOOKS__ !== false` to false in the
  // deployed bundles and drops the hook with it (shared/test-hooks.d.ts), which it cannot through a call.
  if (globalThis.__PLATEN_TEST_HOOKS__ !== false && process.env.PLATEN_TEST_HOOKS === "1")
    injectFaults("dynamodb", clients.ddb as unknown as Parameters<typeof injectFaults>[1]);
  return clients;
}

/**
 * A client whose SDK package is imported on the first call (once; a failed import or construction is tried
 * again on the next call), without the logger middleware, with the fault hook in tests (see `awsClients`).
 */
function onFirstUse<Sdk, Client extends { middlewareStack: { remove(name: string): unknown } }>(
  service: "s3" | "sqs",
  load: () => Promise<Sdk>,
  make: (sdk: Sdk) => Client,
): () => Promise<LazyClient<Sdk, Client>> {
  let loaded: Promise<LazyClient<Sdk, Client>> | undefined;
  return () => {
    loaded ??= load().then((sdk) => {
      const client = withoutLogger(make(sdk));
      if (globalThis.__PLATEN_TEST_HOOKS__ !== false && process.env.PLATEN_TEST_HOOKS === "1")
        injectFaults(service, client as unknown as Parameters<typeof injectFaults>[1]);
      return { sdk, client };
    });
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
}

/**
 * S3, its package imported on the first call: a function whose first request needs no object (a sync render
 * of a design whose bundle is inline in its version item, design-store.ts) compiles none of its ~130 KB at init.
 */
export const s3: () => Promise<S3> = onFirstUse(
  "s3",
  () => import("@aws-sdk/client-s3"),
  (sdk) => {
    const { region, endpoints } = config();
    return new sdk.S3Client({
      region,
      endpoint: endpoints.s3,
      forcePathStyle: Boolean(endpoints.s3),
      // No CRC trailers on every PDF (aws-chunked bodies cost time on both ends); TLS and
      // S3's own checks cover integrity.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      // Never `cacheMiddleware` here: with it, concurrent requests of one command class to
      // different buckets all went to one bucket (a render batch read a design bundle from the
      // files bucket; 40 GETs to two buckets read one: test/integration/foundation.test.ts).
    });
  },
);

/**
 * SQS, its package imported on the first call (a sync answer sends its events after the answer). It resolves its
 * middleware stack once per command class (`cacheMiddleware`): its endpoint does not depend on the queue, checked in
 * test/integration/foundation.test.ts.
 */
export const sqs: () => Promise<Sqs> = onFirstUse(
  "sqs",
  () => import("@aws-sdk/client-sqs"),
  (sdk) => new sdk.SQSClient({ region: config().region, endpoint: config().endpoints.sqs, cacheMiddleware: true }),
);
