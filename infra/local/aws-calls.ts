import { ClientRequest } from "node:http";

/**
 * What one invocation asked of AWS, seen at node:http (the SDK's clients and the lean
 * DynamoDB client both use it): calls per operation, and DynamoDB request units estimated
 * from the request bodies (1 WRU per item written ≤ 1 KB, 2 for a transactional one; 1 RRU
 * per strongly consistent read ≤ 4 KB, ½ eventually consistent). The cost model's inputs.
 */
export interface AwsCalls {
  calls: Record<string, number>;
  wru: number;
  rru: number;
  /** SQS messages sent: one per SendMessage, one per entry of a SendMessageBatch. */
  messages: number;
}

/** Starts counting every request this process sends from now on. */
export function countAwsCalls(): AwsCalls {
  const seen: AwsCalls = { calls: {}, wru: 0, rru: 0, messages: 0 };
  const end = ClientRequest.prototype.end;
  ClientRequest.prototype.end = function (this: ClientRequest, ...args: unknown[]) {
    record(seen, this, args[0]);
    return (end as (...a: unknown[]) => ClientRequest).apply(this, args);
  } as typeof end;
  return seen;
}

function record(seen: AwsCalls, req: ClientRequest, chunk: unknown): void {
  const target = req.getHeader("x-amz-target");
  // JSON protocols name the operation in X-Amz-Target; S3 (REST) is known by its method.
  const op = typeof target === "string" ? operationName(target) : `s3:${req.method}`;
  seen.calls[op] = (seen.calls[op] ?? 0) + 1;
  const body = typeof chunk === "string" || Buffer.isBuffer(chunk) ? chunk.toString() : "";
  if (op === "sqs:SendMessage") seen.messages += 1;
  if (op === "sqs:SendMessageBatch")
    seen.messages += ((JSON.parse(body || "{}") as { Entries?: unknown[] }).Entries ?? []).length;
  if (!op.startsWith("dynamodb:")) return;
  const units = dynamoUnits(op.slice("dynamodb:".length), body);
  seen.wru += units.wru;
  seen.rru += units.rru;
}

function operationName(target: string): string {
  const [service = "", operation = ""] = target.split(".");
  return `${service.startsWith("DynamoDB") ? "dynamodb" : service === "AmazonSQS" ? "sqs" : service}:${operation}`;
}

const kb = (text: string, size: number) => Math.max(1, Math.ceil(Buffer.byteLength(text) / size));

function dynamoUnits(operation: string, body: string): { wru: number; rru: number } {
  const input = (body ? JSON.parse(body) : {}) as Record<string, unknown>;
  const read = (consistent: unknown) => (consistent === true ? 1 : 0.5);
  switch (operation) {
    case "PutItem":
    case "UpdateItem":
    case "DeleteItem":
      return { wru: kb(body, 1024), rru: 0 };
    case "BatchWriteItem":
      return { wru: Object.values(input.RequestItems as Record<string, unknown[]>).flat().length, rru: 0 };
    case "TransactWriteItems":
      return { wru: 2 * (input.TransactItems as unknown[]).length, rru: 0 };
    case "GetItem":
    case "Query":
      return { wru: 0, rru: read(input.ConsistentRead) };
    case "BatchGetItem":
      return {
        wru: 0,
        rru: Object.values(input.RequestItems as Record<string, { Keys: unknown[] }>).reduce(
          (n, t) => n + t.Keys.length * 0.5,
          0,
        ),
      };
    case "TransactGetItems":
      return { wru: 0, rru: 2 * (input.TransactItems as unknown[]).length };
    default:
      return { wru: 0, rru: 0 };
  }
}
