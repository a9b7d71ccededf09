import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
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
  s3: S3Client;
  sqs: SQSClient;
}

let clients: AwsClients | undefined;

/** Endpoints come from configuration: AWS, the local emulators or LocalStack alike. */
export function awsClients(): AwsClients {
  if (clients) return clients;
  const { region, endpoints } = config();
  // No `cacheMiddleware` here: the document client refuses it (its commands add their
  // marshalling middleware per instance).
  const dynamodb = new DynamoDBClient({ region, endpoint: endpoints.dynamodb, maxAttempts: 3 });
  clients = {
    ddb: DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } }),
    s3: new S3Client({
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
    }),
    sqs: new SQSClient({ region, endpoint: endpoints.sqs, cacheMiddleware: true }),
  };
  // The SDK's logger middleware builds a redacted copy of every input and output for its
  // (no-op) logger on each call; nothing here logs through it. Removed before any send (SQS
  // resolves its middleware stack once per command class, `cacheMiddleware`: its endpoint does
  // not depend on the queue, checked in test/integration/foundation.test.ts).
  for (const client of [dynamodb, clients.s3, clients.sqs]) client.middlewareStack.remove("loggerMiddleware");
  // Fault-injection tests only (the local stack's test hooks arm the faults); compiled out of
  // the deployed bundles (shared/test-hooks.d.ts). A test hook, not configuration: its switch
  // is read here, beside the hook, not in config.ts.
  if (globalThis.__PLATEN_TEST_HOOKS__ !== false && process.env.PLATEN_TEST_HOOKS === "1") {
    injectFaults("dynamodb", clients.ddb as unknown as Parameters<typeof injectFaults>[1]);
    injectFaults("s3", clients.s3 as unknown as Parameters<typeof injectFaults>[1]);
    injectFaults("sqs", clients.sqs as unknown as Parameters<typeof injectFaults>[1]);
  }
  return clients;
}
