import { Duration } from "aws-cdk-lib";
import { AttributeType, BillingMode, Table, TableEncryption } from "aws-cdk-lib/aws-dynamodb";
import { BlockPublicAccess, Bucket, BucketEncryption } from "aws-cdk-lib/aws-s3";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import type { BucketDefinition, QueueDefinition, TableDefinition } from "../definitions/index.ts";
import type { PlatenDefinitions } from "./definitions.ts";
import type { StageSettings } from "./stage.ts";

/** A table with the definition it was built from (the definition carries the env var). */
export interface TableResource {
  definition: TableDefinition;
  table: Table;
}

export interface BucketResource {
  definition: BucketDefinition;
  bucket: Bucket;
}

export interface QueueResource {
  definition: QueueDefinition;
  queue: Queue;
  dlq: Queue;
}

/** Every stateful resource of the stack, keyed by definition id. */
export interface PlatenData {
  tables: Record<string, TableResource>;
  buckets: Record<string, BucketResource>;
  queues: Record<string, QueueResource>;
}

/** AWS advice for SQS event sources: visibility time-out ≥ 6 × the function time-out. */
export const VISIBILITY_FACTOR = 6;

/**
 * Tables, buckets and queues, one per definition. Scopes `Tables`, `Buckets` and `Queues`
 * keep the logical ids readable (`Tablesworkspaces…`).
 */
export class PlatenDataResources extends Construct implements PlatenData {
  readonly tables: Record<string, TableResource> = {};
  readonly buckets: Record<string, BucketResource> = {};
  readonly queues: Record<string, QueueResource> = {};

  constructor(scope: Construct, id: string, defs: PlatenDefinitions, settings: StageSettings) {
    super(scope, id);
    const tables = new Construct(this, "Tables");
    for (const def of Object.values(defs.tables)) {
      this.tables[def.id] = { definition: def, table: createTable(tables, def, settings) };
    }
    const buckets = new Construct(this, "Buckets");
    for (const def of Object.values(defs.buckets)) {
      this.buckets[def.id] = { definition: def, bucket: createBucket(buckets, def, settings) };
    }
    const queues = new Construct(this, "Queues");
    for (const def of Object.values(defs.queues)) {
      // A DLQ consumer's time-out is known from its definition even before the handler lands.
      const dlqConsumer = def.dlq.consumer ? defs.functions[def.dlq.consumer] : undefined;
      this.queues[def.id] = createQueue(queues, def, settings, dlqConsumer?.timeoutSeconds);
    }
  }
}

function createTable(scope: Construct, def: TableDefinition, settings: StageSettings): Table {
  const table = new Table(scope, def.id, {
    tableName: `${settings.prefix}-${def.id}`,
    partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
    sortKey: { name: def.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // DESIGN retention: TTL deletes late, code filters expired items itself.
    timeToLiveAttribute: def.ttlAttribute,
    encryption: TableEncryption.AWS_MANAGED,
    removalPolicy: settings.removalPolicy,
    deletionProtection: settings.stage === "prod",
  });
  for (const index of def.indexes) {
    // Index keys are strings (ids, ISO timestamps); the definitions carry no key types yet.
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: index.sortKey ? { name: index.sortKey, type: AttributeType.STRING } : undefined,
    });
  }
  return table;
}

function createBucket(scope: Construct, def: BucketDefinition, settings: StageSettings): Bucket {
  // No autoDeleteObjects: its custom-resource Lambda would hold s3:DeleteObject* on every
  // bucket and run on a runtime we do not pick. Empty dev buckets before `cdk destroy`.
  return new Bucket(scope, def.id, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    versioned: false,
    removalPolicy: settings.removalPolicy,
    lifecycleRules: [
      {
        id: "retention",
        abortIncompleteMultipartUploadAfter: Duration.days(1),
        expiration: def.expireAfterDays === undefined ? undefined : Duration.days(def.expireAfterDays),
      },
    ],
  });
}

function createQueue(
  scope: Construct,
  def: QueueDefinition,
  settings: StageSettings,
  dlqConsumerTimeoutSeconds: number | undefined,
): QueueResource {
  const common = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, removalPolicy: settings.removalPolicy };
  const dlq = new Queue(scope, def.dlq.id, {
    ...common,
    queueName: `${settings.prefix}-${def.dlq.id}`,
    retentionPeriod: Duration.days(def.dlq.retentionDays),
    visibilityTimeout:
      dlqConsumerTimeoutSeconds === undefined
        ? undefined
        : Duration.seconds(VISIBILITY_FACTOR * dlqConsumerTimeoutSeconds),
  });
  const queue = new Queue(scope, def.id, {
    ...common,
    queueName: `${settings.prefix}-${def.id}`,
    visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
    deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
  });
  return { definition: def, queue, dlq };
}
