import { InvokeStore, InvokeStoreBase } from "@aws/lambda-invoke-store";

/**
 * The local stack runs every function's invocations side by side in one process, which
 * Lambda never does for one container (except Lambda Managed Instances). Powertools keeps
 * per-invocation state (log keys, the Lambda context, stored metrics) in the runtime's
 * invoke store when AWS_LAMBDA_MAX_CONCURRENCY is set, so the local stack sets it and runs
 * each invocation in its own store context, as that runtime does: one request's keys never
 * land on another's lines. Imported first by start.ts, before any handler module loads.
 *
 * The same place sets Powertools' local defaults: metrics (EMF lines) are printed only when
 * asked (POWERTOOLS_METRICS_DISABLED=false), the service is `platen`.
 */
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= "64";
process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
process.env.POWERTOOLS_SERVICE_NAME ??= "platen";

const store: InvokeStoreBase = await InvokeStore.getInstanceAsync(true);

/** Runs one invocation (`fn`) in its own invoke-store context, keyed by its Lambda request id. */
export function inInvocation<T>(awsRequestId: string, fn: () => T): T {
  return store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: awsRequestId }, fn);
}
