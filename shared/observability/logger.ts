import { Logger } from "@aws-lambda-powertools/logger";
import type { Context } from "aws-lambda";
import { serviceName } from "#shared/aws/config.ts";

/**
 * The one logger of every function: Powertools' structured JSON on stdout (CloudWatch Logs
 * in AWS). Level from POWERTOOLS_LOG_LEVEL (default INFO). Created once per container.
 *
 * What is never logged: events (they carry appkeys and params), request bodies, params,
 * passcodes, webhook secrets. Call sites pass ids, counts and errors only
 * (test/integration/logging.test.ts checks a whole run's output).
 */
export const logger = new Logger({ serviceName: serviceName() });

/**
 * The keys every line of one invocation carries, besides the Lambda context's
 * `function_request_id`: Platen's `requestId` (a generation request) and `workspaceId`
 * once known, and `apiRequestId` (API Gateway's) on API routes.
 */
export interface LogKeys {
  requestId?: string;
  workspaceId?: string;
  apiRequestId?: string;
}

/**
 * Starts an invocation's log context: the previous invocation's keys are dropped (at the
 * start, not the end, so work a handler leaves for after its response keeps them) and
 * the Lambda context is attached. With concurrent invocations in one process (the local
 * stack), Powertools keeps these per invocation (see infra/local/invocation-scope.ts).
 */
export function startLogContext(context: Context | undefined, keys: LogKeys = {}): void {
  logger.resetKeys();
  if (context?.awsRequestId) logger.addContext(context);
  addLogKeys(keys);
}

/** Adds keys to every later line of this invocation; undefined values are left out. */
export function addLogKeys(keys: LogKeys): void {
  const defined = Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined && v !== ""));
  if (Object.keys(defined).length) logger.appendKeys(defined);
}

/**
 * The keys a batch's items share (an SQS batch usually holds one request's files): each
 * key with one value across the batch, left out where the items differ.
 */
export function sharedLogKeys(items: Pick<LogKeys, "requestId" | "workspaceId">[]): LogKeys {
  const one = (key: "requestId" | "workspaceId") => {
    const values = new Set(items.map((i) => i[key]));
    return values.size === 1 ? [...values][0] : undefined;
  };
  return { requestId: one("requestId"), workspaceId: one("workspaceId") };
}
