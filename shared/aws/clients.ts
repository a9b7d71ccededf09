import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "./config.ts";
import { createDocumentClient, type DocumentSender } from "./document-client.ts";

/**
 * Clients created once per container and reused by warm invocations: the SDK's S3 and SQS
 * clients, and for DynamoDB a lean client for the document commands (document-client.ts).
 */
export interface AwsClients {
  ddb: DocumentSender;
  s3: S3Client;
  sqs: SQSClient;
}

let clients: AwsClients | undefined;

/** Endpoints come from configuration: AWS, the local emulators or LocalStack alike. */
export function awsClients(): AwsClients {
  if (clients) return clients;
  const { region, endpoints } = config();
  const ddb = new DynamoDBClient({ region, endpoint: endpoints.dynamodb, maxAttempts: 3 });
  const sdkDocs = DynamoDBDocumentClient.from(ddb, { marshallOptions: { removeUndefinedValues: true } });
  const lean = createDocumentClient({ client: ddb, fallback: sdkDocs, region, endpoint: endpoints.dynamodb });
  clients = {
    ddb: lean,
    s3: new S3Client({
      region,
      endpoint: endpoints.s3,
      forcePathStyle: Boolean(endpoints.s3),
      // No CRC trailers on every PDF (aws-chunked bodies cost time on both ends); TLS and
      // S3's own checks cover integrity.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      cacheMiddleware: true,
    }),
    sqs: new SQSClient({ region, endpoint: endpoints.sqs, cacheMiddleware: true }),
  };
  // The SDK's logger middleware builds a redacted copy of every input and output for its
  // (no-op) logger on each call; nothing here logs through it. S3 and SQS resolve their
  // middleware stack once per command class (`cacheMiddleware`), so this runs before any send.
  for (const client of [ddb, clients.s3, clients.sqs]) client.middlewareStack.remove("loggerMiddleware");
  return clients;
}
