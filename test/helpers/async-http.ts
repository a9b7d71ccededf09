import { GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { api, type RunningStack } from "./local-stack.ts";
import { readyRuntime } from "./stack-clients.ts";
import { type ErrorBodyJson, type FileEntryJson, readErrorBody } from "./sync-http.ts";
import type { StatusBody } from "#shared/generation/reads/index.ts";

export type AsyncMode = "single" | "multiple";

/** OpenAPI generateAsyncSingle */
export interface AcceptedJson {
  requestId: string;
  url: string;
  files: FileEntryJson[];
}

/** OpenAPI getStatus (the shape the status endpoint declares; the tests check its values). */
export type StatusJson = StatusBody;

/** A status answer as the client saw it. */
export interface StatusAnswer {
  status: number;
  headers: Headers;
  body: StatusJson;
}

/** The API host without `/v1`: `downloadPath` (OpenAPI getStatus) is relative to it. */
export const hostOf = (stack: RunningStack) => `http://127.0.0.1:${stack.port}`;

/** POSTs a JSON body to `/file/async/{mode}`. */
export function postAsync(stack: RunningStack, appKey: string, mode: AsyncMode, body: unknown): Promise<Response> {
  return api(stack, appKey)(`/file/async/${mode}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** POSTs and insists on 202 (failing with the server's answer otherwise). */
export async function acceptOrFail(
  stack: RunningStack,
  appKey: string,
  mode: AsyncMode,
  body: unknown,
): Promise<AcceptedJson> {
  const res = await postAsync(stack, appKey, mode, body);
  const text = await res.text();
  if (res.status !== 202)
    throw new Error(`expected 202 from /file/async/${mode}, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as AcceptedJson;
}

/** GET /file/status/{requestId}; the body is JSON (status or error body). */
export async function getStatus(stack: RunningStack, appKey: string, requestId: string): Promise<StatusAnswer> {
  const res = await api(stack, appKey)(`/file/status/${requestId}`);
  return { status: res.status, headers: res.headers, body: (await res.json()) as StatusJson };
}

export interface PollOptions {
  /** Stop when this holds (default: the request ended, completed or failed). */
  until?: (answer: StatusAnswer) => boolean;
  timeoutMs?: number;
  intervalMs?: number;
}

const ended = (a: StatusAnswer) => a.status === 200 && (a.body.status === "completed" || a.body.status === "failed");

/**
 * Polls the status every 250 ms (a 429 waits its Retry-After) until `until` holds, for
 * at most 60 s; a request that never gets there fails with the last answer seen.
 */
export async function pollStatus(
  stack: RunningStack,
  appKey: string,
  requestId: string,
  opts: PollOptions = {},
): Promise<StatusAnswer> {
  const until = opts.until ?? ended;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let last: StatusAnswer | undefined;
  let networkError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await getStatus(stack, appKey, requestId);
    } catch (err) {
      // A connection reset (e.g. a pooled keep-alive socket closing) is retried like any poll.
      networkError = err;
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
      continue;
    }
    if (until(last)) return last;
    const wait = last.status === 429 ? Number(last.headers.get("retry-after") ?? 1) * 1000 : (opts.intervalMs ?? 250);
    await new Promise((r) => setTimeout(r, wait));
  }
  const lastError = networkError
    ? `; last network error: ${String((networkError as Error).cause ?? networkError)}`
    : "";
  throw new Error(
    `request ${requestId} not finished after ${timeoutMs} ms; last answer ${last?.status}: ${JSON.stringify(last?.body)}${lastError}`,
  );
}

/** GET /file/download/{requestId}[/{fileId}]. */
export function download(stack: RunningStack, appKey: string, requestId: string, fileId?: string): Promise<Response> {
  return api(stack, appKey)(`/file/download/${requestId}${fileId === undefined ? "" : `/${fileId}`}`);
}

/** An error answer: status, the headers and the error body (README.md#errors). */
export async function errorOf(res: Response): Promise<{ status: number; headers: Headers; body: ErrorBodyJson }> {
  return { status: res.status, headers: res.headers, body: await readErrorBody(res) };
}

/** Test hook of the local stack: the service clock runs `offsetMs` ahead of real time (absolute). */
export async function moveClock(stack: RunningStack, offsetMs: number): Promise<void> {
  const res = await fetch(`${hostOf(stack)}/__local/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ offsetMs }),
  });
  if (res.status !== 200) throw new Error(`clock hook answered ${res.status}: ${await res.text()}`);
}

const readRuntime = (stack: RunningStack) => readyRuntime(stack.dataDir);

/** The render queue of a running stack, reached like any SQS client would. */
export function renderQueue(stack: RunningStack) {
  const runtime = readRuntime(stack);
  const sqs = new SQSClient({
    region: "us-east-1",
    endpoint: runtime.endpoints.aws,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const QueueUrl = runtime.queueUrls.render!;
  return {
    /** Sends one render message, as the acceptance does (body `{workspaceId, requestId, fileId}`). */
    send: async (msg: { workspaceId: string; requestId: string; fileId: string }) => {
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify(msg) }));
    },
    /**
     * Sends up to 10 render messages in one call and returns their SQS message ids, in
     * order. They are queued at once, so on an idle queue the worker's next receive takes
     * them together (up to its batch size).
     */
    sendBatch: async (msgs: { workspaceId: string; requestId: string; fileId: string }[]): Promise<string[]> => {
      const entries = msgs.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) }));
      const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: entries }));
      if (out.Failed?.length)
        throw new Error(`${out.Failed.length} render messages not sent: ${JSON.stringify(out.Failed)}`);
      const ids = new Map((out.Successful ?? []).map((e) => [e.Id, e.MessageId!]));
      return entries.map((e) => ids.get(e.Id)!);
    },
    /** Waits until no message is waiting or in flight (the worker consumed everything). */
    drained: async (timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const { Attributes } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl,
            AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
          }),
        );
        if (
          Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
            Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) ===
          0
        )
          return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`render queue not drained after ${timeoutMs} ms`);
    },
    close: () => sqs.destroy(),
  };
}
