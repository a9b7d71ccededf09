import { subscribe } from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { RENDER_CHANNEL, type RenderEvent } from "#shared/render/render-events.ts";
import { type AwsCalls, countAwsCalls } from "#infra/local/aws-calls.ts";
import { descendantPids } from "./tree-rss.ts";

/**
 * The child of one cold run, standing in for the Lambda Node.js runtime: a fresh process
 * that imports a deployed bundle (its init phase), then invokes its handler once with the
 * event of the job file. Prints one JSON line of epoch times (ms) for the parent.
 * Bundled by esbuild before the bench so no TypeScript loader adds to the process start.
 */
export interface ColdJob {
  /** The asset folder: `index.mjs` exporting `handler`. */
  codeDir: string;
  event: unknown;
  timeoutSeconds: number;
  /** Invocations of the same event after the cold one, timed as warm (0 for events that cannot repeat). */
  warmRuns?: number;
}

export interface ColdTimes {
  /** Process start (performance.timeOrigin). */
  start: number;
  /** The bundle's module graph evaluated (Lambda: end of init). */
  ready: number;
  browserLaunched?: number;
  pdfPrinted?: number;
  /** First body bytes of a streamed answer, or the handler's return. */
  answered: number;
  status: number | string;
  /** CPU time of this Node process (user + system) when it answered: less load-sensitive than wall time. */
  cpuMs: number;
  /** The cold invocation's end, after-work included (Lambda bills init + this). */
  done?: number;
  /** Median duration of the warm invocations. */
  warmMs?: number;
  /** What the invocation asked of AWS, counted until it returned (after-work included). */
  aws?: AwsCalls;
  /** A plain (not streamed) answer's body, for the parent to read ids from. */
  body?: string;
}

const now = () => performance.timeOrigin + performance.now();
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");

const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as ColdJob;
const times: Partial<ColdTimes> = { start: performance.timeOrigin };
subscribe(RENDER_CHANNEL, (message) => {
  const { event } = message as RenderEvent;
  if (event === "browser-launched") times.browserLaunched ??= now();
  if (event === "pdf-printed") times.pdfPrinted ??= now();
});

/** The `awslambda` global of the runtime: response streaming, first bytes timed. */
function installStreamingRuntime(): void {
  const g = globalThis as { awslambda?: Record<string, unknown> };
  g.awslambda ??= {};
  Object.assign(g.awslambda, {
    streamifyResponse: <T extends object>(fn: T): T => Object.assign(fn, { [STREAMING]: "response" }),
    HttpResponseStream: {
      from: (stream: Writable, metadata: { statusCode?: number }) => {
        times.status = metadata.statusCode ?? 200;
        return stream;
      },
    },
  });
}

function responseStream(): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      if (times.answered === undefined) {
        times.answered = now();
        times.cpuMs = cpuMs();
      }
      // The start of an error answer's body, for the parent's message.
      if (times.status !== undefined && Number(times.status) >= 400 && (times.body ?? "").length < 4000)
        times.body = (times.body ?? "") + chunk.toString("utf8", 0, Math.min(chunk.length, 4000));
      done();
    },
  });
}

/** A fresh context per invocation, as the runtime gives (the remaining time starts anew). */
function invocationContext() {
  const deadline = now() + job.timeoutSeconds * 1000;
  return {
    functionName: "cold",
    awsRequestId: crypto.randomUUID(),
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
  };
}

type Handler = ((event: unknown, ...rest: unknown[]) => Promise<unknown>) & { [STREAMING]?: string };
type PlainResult = { statusCode?: number; body?: string; batchItemFailures?: unknown[] };

/** One invocation to its end (a streamed answer's after-work included): what Lambda bills. */
async function invoke(handler: Handler): Promise<PlainResult | undefined> {
  if (handler[STREAMING]) return void (await handler(job.event, responseStream(), invocationContext()));
  return (await handler(job.event, invocationContext())) as PlainResult;
}

installStreamingRuntime();
const aws = countAwsCalls();
try {
  const { handler } = (await import(pathToFileURL(join(job.codeDir, "index.mjs")).href)) as { handler: Handler };
  times.ready = now();
  const result = await invoke(handler);
  if (!handler[STREAMING]) {
    times.answered = now();
    times.cpuMs = cpuMs();
    times.status = result?.statusCode ?? (result?.batchItemFailures?.length ? "batch failures" : "ok");
    times.body = result?.body;
  }
  times.done = now();
  const coldAws = structuredClone(aws);
  // The same event again in the now warm process: the billed duration of a warm invocation.
  const warm: number[] = [];
  for (let i = 0; i < (job.warmRuns ?? 0); i++) {
    const started = now();
    await invoke(handler);
    warm.push(now() - started);
  }
  times.warmMs = warm.sort((a, b) => a - b)[Math.floor(warm.length / 2)];
  process.stdout.write(`${JSON.stringify({ ...times, aws: coldAws })}\n`);
} finally {
  // The browsers the bundle started (puppeteer gives them their own process group) end
  // with this run, as a frozen Lambda sandbox runs nothing either.
  for (const pid of descendantPids(process.pid)) process.kill(pid, "SIGKILL");
}
process.exit(0);
