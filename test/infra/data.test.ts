import { beforeAll, describe, expect, it } from "vitest";
import { buckets, queues, tables } from "#shared/definitions/index.ts";
import { resolveResource } from "./iam.ts";
import { logicalId, resourcesOfType, SYNTH_TIMEOUT_MS, type Synthesized, synthStack, type Cfn } from "./synth.ts";

let dev: Synthesized;
let prod: Synthesized;

beforeAll(() => {
  dev = synthStack();
  prod = synthStack({ stage: "prod" });
}, SYNTH_TIMEOUT_MS);

const props = (s: Synthesized, id: string) => s.json.Resources[id]!.Properties!;

describe("DynamoDB tables of shared/definitions/tables.ts", () => {
  it("creates exactly one table per definition, mapped by logical id", () => {
    expect(resourcesOfType(dev.json, "AWS::DynamoDB::Table")).toHaveLength(Object.keys(tables).length);
    for (const def of Object.values(tables)) {
      const id = logicalId(dev.stack, dev.stack.data.tables[def.id]!.table);
      expect(dev.json.Resources[id]!.Type).toBe("AWS::DynamoDB::Table");
      expect(props(dev, id).TableName).toBe(`platen-dev-${def.id}`);
    }
  });

  it("is on-demand with pk/sk string keys, PITR, TTL expiresAt and AWS-managed encryption", () => {
    for (const [, p] of resourcesOfType(dev.json, "AWS::DynamoDB::Table")) {
      expect(p.BillingMode).toBe("PAY_PER_REQUEST");
      expect(p.KeySchema).toEqual([
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ]);
      expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(p.TimeToLiveSpecification).toEqual({ AttributeName: "expiresAt", Enabled: true });
      // SSEEnabled without a key: KMS with the AWS-managed key aws/dynamodb.
      expect(p.SSESpecification).toEqual({ SSEEnabled: true });
    }
  });

  it("has exactly the GSIs of the definitions", () => {
    for (const def of Object.values(tables)) {
      const p = props(dev, logicalId(dev.stack, dev.stack.data.tables[def.id]!.table));
      const actual = (p.GlobalSecondaryIndexes ?? []).map((g: Cfn) => ({
        name: g.IndexName,
        keys: g.KeySchema.map((k: Cfn) => k.AttributeName),
        projection: g.Projection.ProjectionType,
      }));
      const expected = def.indexes.map((i) => ({
        name: i.name,
        keys: [i.partitionKey, ...(i.sortKey ? [i.sortKey] : [])],
        projection: "ALL",
      }));
      expect(actual, def.id).toEqual(expected);
    }
  });

  it("is retained and deletion-protected in prod, destroyed in dev", () => {
    for (const [id] of resourcesOfType(prod.json, "AWS::DynamoDB::Table")) {
      expect(prod.json.Resources[id]).toMatchObject({ DeletionPolicy: "Retain" });
      expect(props(prod, id).DeletionProtectionEnabled).toBe(true);
    }
    for (const [id] of resourcesOfType(dev.json, "AWS::DynamoDB::Table")) {
      expect(dev.json.Resources[id]).toMatchObject({ DeletionPolicy: "Delete" });
    }
  });
});

describe("S3 buckets of shared/definitions/buckets.ts", () => {
  it("creates one private, encrypted, unversioned bucket per definition with its lifecycle", () => {
    // Plus the access-log bucket and the site's static assets (static-assets.test.ts).
    expect(resourcesOfType(dev.json, "AWS::S3::Bucket")).toHaveLength(Object.keys(buckets).length + 2);
    const logBucket = logicalId(dev.stack, dev.stack.data.accessLogs);
    for (const def of Object.values(buckets)) {
      const id = logicalId(dev.stack, dev.stack.data.buckets[def.id]!.bucket);
      const p = props(dev, id);
      expect(p.LoggingConfiguration).toEqual({
        DestinationBucketName: { Ref: logBucket },
        LogFilePrefix: `${def.id}/`,
      });
      expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe(
        "AES256",
      );
      expect(p.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      // Object Lock needs versioning: only the records bucket has both (shared/records/README.md).
      if ("objectLock" in def) {
        expect(p.VersioningConfiguration).toEqual({ Status: "Enabled" });
        expect(p.ObjectLockEnabled).toBe(true);
        expect(p.ObjectLockConfiguration.Rule.DefaultRetention).toEqual({
          Mode: "COMPLIANCE",
          Days: def.objectLock.defaultDays,
        });
        continue;
      }
      expect(p.VersioningConfiguration).toBeUndefined();
      const [rule, ...prefixRules] = p.LifecycleConfiguration.Rules;
      expect(rule.AbortIncompleteMultipartUpload).toEqual({ DaysAfterInitiation: 1 });
      expect(rule.ExpirationInDays).toBe("expireAfterDays" in def ? def.expireAfterDays : undefined);
      const expected = "prefixExpiry" in def ? def.prefixExpiry : [];
      expect(prefixRules.map((r: Cfn) => ({ prefix: r.Prefix, days: r.ExpirationInDays }))).toEqual(expected);
    }
  });

  it("answers browsers' presigned GETs (CORS) only where the definition says so: the files bucket", () => {
    for (const def of Object.values(buckets)) {
      const p = props(dev, logicalId(dev.stack, dev.stack.data.buckets[def.id]!.bucket));
      if (!("browserGet" in def && def.browserGet)) {
        expect(p.CorsConfiguration, def.id).toBeUndefined();
        continue;
      }
      expect(p.CorsConfiguration.CorsRules).toEqual([
        expect.objectContaining({ AllowedMethods: ["GET", "HEAD"], AllowedOrigins: ["*"], AllowedHeaders: ["*"] }),
      ]);
    }
    expect(buckets.files).toHaveProperty("browserGet", true);
  });

  it("denies every request without TLS (aws:SecureTransport false)", () => {
    for (const def of Object.values(buckets)) {
      const bucketId = logicalId(dev.stack, dev.stack.data.buckets[def.id]!.bucket);
      const policy = resourcesOfType(dev.json, "AWS::S3::BucketPolicy").find(([, p]) => p.Bucket.Ref === bucketId);
      const deny = policy![1].PolicyDocument.Statement.find((st: Cfn) => st.Effect === "Deny");
      expect(deny.Condition).toEqual({ Bool: { "aws:SecureTransport": "false" } });
      expect(deny.Resource.map((r: unknown) => resolveResource(r).logicalId)).toEqual([bucketId, bucketId]);
    }
  });

  it("is retained in prod", () => {
    for (const [id] of resourcesOfType(prod.json, "AWS::S3::Bucket")) {
      expect(prod.json.Resources[id]).toMatchObject({ DeletionPolicy: "Retain" });
    }
  });
});

describe("SQS queues of shared/definitions/queues.ts", () => {
  it("creates a queue and a DLQ per definition (and nothing else)", () => {
    expect(resourcesOfType(dev.json, "AWS::SQS::Queue")).toHaveLength(2 * Object.keys(queues).length);
  });

  it("redrives to the DLQ after maxReceiveCount (≥ 5) and keeps the definition's visibility time-out", () => {
    for (const def of Object.values(queues)) {
      const { queue, dlq } = dev.stack.data.queues[def.id]!;
      const p = props(dev, logicalId(dev.stack, queue));
      expect(p.QueueName).toBe(`platen-dev-${def.id}`);
      expect(p.VisibilityTimeout).toBe(def.visibilityTimeoutSeconds);
      expect(p.RedrivePolicy.maxReceiveCount).toBe(def.maxReceiveCount);
      expect(p.RedrivePolicy.maxReceiveCount).toBeGreaterThanOrEqual(5);
      expect(resolveResource(p.RedrivePolicy.deadLetterTargetArn).logicalId).toBe(logicalId(dev.stack, dlq));
      const d = props(dev, logicalId(dev.stack, dlq));
      expect(d.QueueName).toBe(`platen-dev-${def.dlq.id}`);
      expect(d.MessageRetentionPeriod).toBe(def.dlq.retentionDays * 86_400);
    }
  });

  it("encrypts with SQS-managed keys and denies non-TLS access", () => {
    for (const [id, p] of resourcesOfType(dev.json, "AWS::SQS::Queue")) {
      expect(p.SqsManagedSseEnabled).toBe(true);
      const policy = resourcesOfType(dev.json, "AWS::SQS::QueuePolicy").find(([, qp]) =>
        qp.Queues.some((q: Cfn) => q.Ref === id),
      );
      const deny = policy![1].PolicyDocument.Statement.find((st: Cfn) => st.Effect === "Deny");
      expect(deny.Condition).toEqual({ Bool: { "aws:SecureTransport": "false" } });
    }
  });
});

describe("logs", () => {
  it("keeps logs a month in dev and a year in prod", () => {
    for (const [, p] of resourcesOfType(dev.json, "AWS::Logs::LogGroup")) expect(p.RetentionInDays).toBe(30);
    for (const [, p] of resourcesOfType(prod.json, "AWS::Logs::LogGroup")) expect(p.RetentionInDays).toBe(365);
  });
});
