import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type FunctionId, functions } from "#shared/definitions/index.ts";
import { prebuiltEntryUrl } from "./prebuilt.ts";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// biome-ignore lint/suspicious/noExplicitAny: handlers have event-source-specific signatures
export type AnyHandler = (event: any, context: any) => Promise<any>;

const loaded = new Map<string, Promise<AnyHandler>>();

/** Imports a function's entry (as listed in the definitions) the way Lambda would: once, then warm. */
export function loadHandler(id: FunctionId | string): Promise<AnyHandler> {
  const def = (functions as Record<string, { entry: string }>)[id];
  if (!def) throw new Error(`unknown function ${id}`);
  let handler = loaded.get(id);
  if (!handler) {
    const url = prebuiltEntryUrl(def.entry) ?? pathToFileURL(resolve(repoRoot, def.entry)).href;
    handler = import(url).then((m: { handler?: AnyHandler }) => {
      if (typeof m.handler !== "function") throw new Error(`${def.entry} exports no handler`);
      return m.handler;
    });
    loaded.set(id, handler);
  }
  return handler;
}

/** A Lambda context good enough for handlers that read the remaining time. */
export function lambdaContext(functionName: string, timeoutSeconds: number, requestId: string) {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    functionName,
    functionVersion: "$LATEST",
    awsRequestId: requestId,
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: "1024",
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "local",
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}
