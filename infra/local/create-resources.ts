import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from "@aws-sdk/client-dynamodb";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import {
  type BucketDefinition,
  buckets,
  type QueueDefinition,
  queues,
  type TableDefinition,
  tables,
} from "#shared/definitions/index.ts";
import { localBucketName, localQueueName, localTableName } from "./resource-names.ts";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const region = "us-east-1";

/** CreateTable inputs built from the shared definitions (the CDK stack reads the same list). */
export function createTableInputs(defs: Record<string, TableDefinition> = tables): CreateTableCommandInput[] {
  return Object.values(defs).map((t) => {
    const attributes = new Set<string>([t.partitionKey, t.sortKey]);
    for (const index of t.indexes) {
      attributes.add(index.partitionKey);
      if (index.sortKey) attributes.add(index.sortKey);
    }
    return {
      TableName: localTableName(t.id),
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: "S" as const })),
      KeySchema: [
        { AttributeName: t.partitionKey, KeyType: "HASH" as const },
        { AttributeName: t.sortKey, KeyType: "RANGE" as const },
      ],
      GlobalSecondaryIndexes: t.indexes.length
        ? t.indexes.map((index) => ({
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: "HASH" as const },
              ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: "RANGE" as const }] : []),
            ],
            Projection: { ProjectionType: "ALL" as const },
          }))
        : undefined,
    };
  });
}

/** Queue attributes (visibility, redrive) from the definitions; DLQs first so their ARN exists. */
export async function createQueues(
  sqs: SQSClient,
  defs: Record<string, QueueDefinition> = queues,
  visibilityScale = 1,
): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const q of Object.values(defs)) {
    const dlq = await sqs.send(
      new CreateQueueCommand({
        QueueName: localQueueName(q.dlq.id),
        Attributes: { MessageRetentionPeriod: String(q.dlq.retentionDays * 86400) },
      }),
    );
    urls[q.dlq.id] = dlq.QueueUrl!;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ["QueueArn"] }),
    );
    const main = await sqs.send(
      new CreateQueueCommand({
        QueueName: localQueueName(q.id),
        Attributes: {
          VisibilityTimeout: String(Math.max(1, Math.round(q.visibilityTimeoutSeconds * visibilityScale))),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: Attributes!.QueueArn,
            maxReceiveCount: q.maxReceiveCount,
          }),
        },
      }),
    );
    urls[q.id] = main.QueueUrl!;
  }
  return urls;
}

/**
 * Creates every table, bucket and queue of the shared definitions on the emulators
 * (idempotent: existing tables are kept, so a restart never loses data). Returns queue URLs.
 */
export async function createLocalResources(
  endpoints: { dynamodb: string; aws: string },
  opts: { visibilityScale?: number } = {},
): Promise<Record<string, string>> {
  const ddb = new DynamoDBClient({ region, credentials, endpoint: endpoints.dynamodb });
  for (const input of createTableInputs()) {
    try {
      await ddb.send(new CreateTableCommand(input));
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
  }
  const s3 = new S3Client({ region, credentials, endpoint: endpoints.aws, forcePathStyle: true });
  for (const b of Object.values(buckets) as BucketDefinition[]) {
    await s3.send(new CreateBucketCommand({ Bucket: localBucketName(b.id) })).catch((err: { name?: string }) => {
      if (err.name !== "BucketAlreadyOwnedByYou" && err.name !== "BucketAlreadyExists") throw err;
    });
  }
  const sqs = new SQSClient({ region, credentials, endpoint: endpoints.aws });
  const urls = await createQueues(sqs, queues, opts.visibilityScale);
  ddb.destroy();
  s3.destroy();
  sqs.destroy();
  return urls;
}
