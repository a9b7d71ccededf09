import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import type { ILogGroup } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { type FunctionDefinition, writePrefixes } from "#shared/definitions/index.ts";
import type { PlatenData } from "./data.ts";

/** What CDK's `grantReadData` / `grantReadWriteData` allow, minus the stream actions (no table has a stream). */
const TABLE_READ = [
  "dynamodb:BatchGetItem",
  "dynamodb:Query",
  "dynamodb:GetItem",
  "dynamodb:Scan",
  "dynamodb:ConditionCheckItem",
  "dynamodb:DescribeTable",
];
const TABLE_WRITE = ["dynamodb:BatchWriteItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"];

/**
 * The execution role of one function: Lambda may assume it and a customer-managed policy
 * lets it write to its own log group only (AWSLambdaBasicExecutionRole would allow every
 * log group of the account). The access lists add the rest (`grantAccess`).
 */
export function executionRole(scope: Construct, logGroup: ILogGroup): Role {
  const policy = new ManagedPolicy(scope, "ExecutionPolicy", {
    description: "Writes this function's own log group",
    statements: [
      new PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [logGroup.logGroupArn],
      }),
    ],
  });
  return new Role(scope, "ServiceRole", {
    assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
    managedPolicies: [policy],
  });
}

/**
 * Least privilege from the access lists, with every resource named: tables and their
 * indexes by name (no `index/*`), bucket objects with exact actions (GetObject, PutObject;
 * ListBucket so a missing key reads as NoSuchKey, not AccessDenied), send on queues.
 * Never table administration, never object deletion.
 */
export function grantAccess(role: Role, def: FunctionDefinition, data: PlatenData): void {
  const { tablesRead = [], tablesWrite = [], bucketsRead = [], bucketsWrite = [], queuesSend = [] } = def.access;
  for (const id of new Set([...tablesRead, ...tablesWrite])) {
    const { definition, table } = lookup(data.tables, id, def, "table");
    const actions = tablesWrite.includes(id) ? [...TABLE_READ, ...TABLE_WRITE] : TABLE_READ;
    const indexes = definition.indexes.map((index) => `${table.tableArn}/index/${index.name}`);
    role.addToPrincipalPolicy(new PolicyStatement({ actions, resources: [table.tableArn, ...indexes] }));
  }
  for (const id of bucketsRead) {
    const { bucket } = lookup(data.buckets, id, def, "bucket");
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["s3:GetObject"], resources: [bucket.arnForObjects("*")] }),
    );
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ["s3:ListBucket"], resources: [bucket.bucketArn] }));
  }
  for (const id of bucketsWrite) {
    const { bucket } = lookup(data.buckets, id, def, "bucket");
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:PutObject"],
        resources: writePrefixes(def.access, id).map((prefix) => bucket.arnForObjects(`${prefix}*`)),
      }),
    );
  }
  for (const id of queuesSend) lookup(data.queues, id, def, "queue").queue.grantSendMessages(role);
  for (const id of def.access.deadLettersSend ?? []) lookup(data.queues, id, def, "queue").dlq.grantSendMessages(role);
  if (def.access.identityKeys) {
    if (!data.identityKeys)
      throw new Error(`Function ${def.id} needs the identity keys secret, which the stack lacks.`);
    data.identityKeys.grantRead(role);
  }
  if (def.access.signingKeys) {
    if (!data.signingKeys) throw new Error(`Function ${def.id} needs the signing key, which the stack lacks.`);
    // Sealing new identities asks for data keys only; signing only decrypts them (key-sealing.ts).
    if (def.access.signingKeys === "seal")
      role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ["kms:GenerateDataKey"], resources: [data.signingKeys.keyArn] }),
      );
    else data.signingKeys.grantDecrypt(role);
  }
}

/** A resource of the definitions by id, or a synth error naming what is missing. */
export function lookup<T>(resources: Record<string, T>, id: string, def: FunctionDefinition, kind: string): T {
  const resource = resources[id];
  if (!resource) throw new Error(`Function ${def.id} needs ${kind} "${id}", which the definitions lack.`);
  return resource;
}
