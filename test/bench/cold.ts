import { cpSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { queues } from "#shared/definitions/index.ts";
import type { LocalJson } from "#infra/local/seed.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";
import { renderHtml } from "#shared/render/template.ts";
import { type DeployedFunction, remapOpt, synthDeployedFunctions, unzippedSizeMb } from "./cold-artefacts.ts";
import { apiEvent, sqsEvent } from "./cold-events.ts";
import { buildColdChildren, type ColdRun, runCold } from "./cold-run.ts";
import { fmt, percentile } from "./stats.ts";
import { UNLIMITED } from "../helpers/local-stack.ts";
import { readyRuntime, stackEnvironment } from "../helpers/stack-clients.ts";

/** What the cold phase needs of a running local stack: its data dir (runtime.json) and seed. */
export interface ColdTarget {
  dataDir: string;
  localJson: LocalJson;
}

const FUNCTIONS = [
  "generate-sync",
  "render",
  "generate-async",
  "list-designs",
  "get-status",
  "download-files",
] as const;
const FLOOR = "floor: Chromium + page.pdf only";
/** What the AWS-calls table alone needs (BENCH_COLD_CALLS=1). */
const CALLS_FUNCTIONS: readonly string[] = ["generate-sync", "render", "generate-async"];
/** The sync function and its variants against the floor only (BENCH_COLD_SYNC=1); render is synthesized for the floor's layers. */
const SYNC_FUNCTIONS: readonly string[] = ["generate-sync", "render"];

const ASYNC_100 = "generate-async, 100 files";
/** The render queue's batch size (shared/definitions/queues.ts). */
const RENDER_BATCH = queues.render.batchSize;
const RENDER_BATCH_LABEL = `render, a batch of ${RENDER_BATCH} of those`;

/** Up to `max` messages of the bench queue, each deleted once received. */
async function receive(sqs: SQSClient, queueUrl: string, max: number): Promise<Message[]> {
  const messages: Message[] = [];
  while (messages.length < max) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, max - messages.length),
        WaitTimeSeconds: 1,
      }),
    );
    if (Messages.length === 0) break;
    for (const m of Messages)
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
    messages.push(...Messages);
  }
  return messages;
}

/** Empties the bench queue (messages of warm repeats nobody renders). */
async function drain(sqs: SQSClient, queueUrl: string): Promise<void> {
  while ((await receive(sqs, queueUrl, 10)).length > 0);
}

/** The sync function with one cold-start step undone (or one not taken yet) by its environment. */
const SYNC_VARIANTS: Record<string, Record<string, string>> = {
  "generate-sync, browser launched at first render (RENDER_LAUNCH_AT_INIT=0)": { RENDER_LAUNCH_AT_INIT: "0" },
  "generate-sync, with --enable-source-maps": { NODE_OPTIONS: "--enable-source-maps" },
};

/**
 * What a V8 compile cache shipped with the code would give (Node ≥ 22.1 reads NODE_COMPILE_CACHE;
 * older versions ignore it, so the variant is left out): the cache is filled by one untimed run
 * before the rounds (and kept up by every run), then every round starts from it. Not deployed:
 * the cache only counts for the exact Node version that wrote it (README "Cold starts").
 */
const COMPILE_CACHE_VARIANT = "generate-sync, V8 compile cache filled beforehand (NODE_COMPILE_CACHE)";
const compileCacheWorks = () => {
  const [major, minor] = process.versions.node.split(".").map(Number);
  return major! > 22 || (major === 22 && minor! >= 1);
};

/**
 * The cold phase: the deployed bundles (synthesized by the CDK stack) run `n` times each in
 * fresh processes against the running stack's emulators. Per round: a sync PDF, an async
 * request (its render message goes to a bench queue, not the stack's poller), that message
 * rendered by a cold render function, then the designs list and the status of the request,
 * and the cold floor. Rounds interleave the functions so load changes hit all alike.
 */
export async function runColdPhase(
  target: ColdTarget,
  bundle: DesignBundle,
  params: Record<string, unknown>,
  n: number,
  log: (line: string) => void,
  {
    callsOnly = false,
    syncOnly = false,
    profileDir,
    compareDir,
    compareEnv = {},
    compareArgs = [],
  }: {
    callsOnly?: boolean;
    /** Only the floor, the sync function and its variants: the cold-start ratio in a fraction of the time. */
    syncOnly?: boolean;
    /** Where the first round's sync run writes its V8 CPU profile (`--cpu-prof`); the bundles are copied there (`work/`). */
    profileDir?: string;
    /** The asset folder of another generate-sync build, run in every round beside the synthesized one. */
    compareDir?: string;
    /** What that build's function sets in its environment on top of this one's. */
    compareEnv?: Record<string, string>;
    /** Node options on the compared build's command line (those NODE_OPTIONS refuses, e.g. V8 heap flags). */
    compareArgs?: string[];
  } = {},
) {
  const work = await mkdtemp(join(tmpdir(), "platen-cold-bench-"));
  let profiledCode: string | undefined;
  // Only the AWS-calls table (BENCH_COLD_CALLS=1): the invocations the cost model counts, once each.
  const only = callsOnly ? CALLS_FUNCTIONS : syncOnly ? SYNC_FUNCTIONS : undefined;
  const functions = only ? FUNCTIONS.filter((id) => only.includes(id)) : FUNCTIONS;
  try {
    log(`  synthesizing the stack's bundles (${functions.join(", ")})…`);
    const deployed = synthDeployedFunctions(functions, join(work, "cdk.out"));
    profiledCode = deployed["generate-sync"]?.codeDir;
    const children = await buildColdChildren(work);
    const sizes = functions.map((id) => `${id} ${fmt(unzippedSizeMb(deployed[id]!))}`).join(", ");
    log(`  unzipped code + layers (MB, Lambda's limit is 250): ${sizes}`);
    const runtime = readyRuntime(target.dataDir);
    const local = stackEnvironment(target.dataDir);
    const sqs = new SQSClient({
      region: "us-east-1",
      endpoint: runtime.endpoints.aws,
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    const benchQueue = (await sqs.send(new CreateQueueCommand({ QueueName: "platen-bench-cold-render" }))).QueueUrl!;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: benchQueue, AttributeNames: ["QueueArn"] }),
    );
    const ws = target.localJson.workspaces[0]!;
    const designId = ws.designs.find((d) => d.label.includes("請求書"))!.id;
    const floorJob = {
      chromiumPath: await resolveExecutablePath(remapOpt(deployed.render!).CHROMIUM_PATH),
      fontDir: remapOpt(deployed.render!).RENDER_FONT_DIR,
      html: await renderHtml(bundle, params, { bundleKey: "floor", title: "floor" }),
      page: bundle.manifest.page,
    };
    // Warm repeats where the event can repeat (a render message is settled once rendered).
    const cold = (
      fn: DeployedFunction,
      event: unknown,
      extraEnv: Record<string, string> = {},
      warmRuns = fn.id === "render" ? 0 : 3,
      nodeArgs: string[] = [],
      codeDir = fn.codeDir,
    ) =>
      runCold(
        children.invoke,
        { codeDir, event, timeoutSeconds: fn.timeoutSeconds, warmRuns },
        {
          ...local,
          // A round is 12 sync calls: the per-minute rate limits (shared/limits/README.md#rate-limits) would
          // answer 429 from the fifth.
          PLATEN_RATE_LIMITS: UNLIMITED,
          ...remapOpt(fn),
          AWS_LAMBDA_FUNCTION_NAME: `platen-bench-${fn.id}`,
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
          LAMBDA_TASK_ROOT: fn.codeDir,
          ...extraEnv,
        },
        nodeArgs,
      );
    const runs = new Map<string, ColdRun[]>();
    const record = (label: string, run: ColdRun) => {
      runs.set(label, [...(runs.get(label) ?? []), run]);
      return run;
    };
    const content = { fileName: "cold", params };
    const syncEvent = () =>
      apiEvent({
        method: "POST",
        resource: "/file/sync/single",
        path: "/file/sync/single",
        appKey: ws.appKey,
        body: { designId, version: 1, content },
      });
    const variants = { ...SYNC_VARIANTS };
    if (!callsOnly && compileCacheWorks()) {
      variants[COMPILE_CACHE_VARIANT] = { NODE_COMPILE_CACHE: join(work, "compile-cache") };
      await cold(deployed["generate-sync"]!, syncEvent(), variants[COMPILE_CACHE_VARIANT], 0);
    }
    for (let i = 0; i < n; i++) {
      const floor = callsOnly
        ? undefined
        : record(FLOOR, await runCold(children.floor, floorJob, { ...remapOpt(deployed.render!) }));
      // NODE_OPTIONS may not hold --cpu-prof: it goes on the command line.
      const profile = profileDir && i === 0 ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
      const sync = record(
        "generate-sync",
        expectStatus(await cold(deployed["generate-sync"]!, syncEvent(), {}, 3, profile), 200),
      );
      // The same bundle with one step undone, in the same round: the steps' effects side by side.
      for (const [label, env] of callsOnly ? [] : Object.entries(variants))
        record(label, expectStatus(await cold(deployed["generate-sync"]!, syncEvent(), env, 0), 200));
      // Another build of the same function (same layers and environment) in the same rounds: a bundle change A/B.
      if (compareDir)
        record(
          `generate-sync, the bundle in ${compareDir}`,
          expectStatus(
            await cold(deployed["generate-sync"]!, syncEvent(), compareEnv, 0, compareArgs, compareDir),
            200,
          ),
        );
      if (syncOnly) {
        log(
          `  round ${i + 1}/${n}: sync first PDF ${fmt(sync.answered)} ms, floor ${fmt(floor?.answered ?? Number.NaN)} ms`,
        );
        continue;
      }
      const accepted = record(
        "generate-async",
        expectStatus(
          await cold(
            deployed["generate-async"]!,
            apiEvent({
              method: "POST",
              resource: "/file/async/single",
              path: "/file/async/single",
              appKey: ws.appKey,
              body: { designId, version: 1, content },
            }),
            { QUEUE_RENDER: benchQueue },
          ),
          202,
        ),
      );
      // One message (the cold request or a warm repeat: each is a 1-file request), the rest dropped.
      const messages = await receive(sqs, benchQueue, 1);
      if (messages.length === 0) throw new Error("the cold async request queued no render message");
      const render = record(
        "render",
        expectStatus(await cold(deployed.render!, sqsEvent(messages, Attributes!.QueueArn!)), "ok"),
      );
      await drain(sqs, benchQueue);
      const requestId = (JSON.parse(accepted.body ?? "{}") as { requestId: string }).requestId;
      if (!callsOnly) {
        record(
          "list-designs",
          expectStatus(
            await cold(
              deployed["list-designs"]!,
              apiEvent({ method: "GET", resource: "/file/designs", path: "/file/designs", appKey: ws.appKey }),
            ),
            200,
          ),
        );
        record(
          "get-status",
          expectStatus(
            await cold(
              deployed["get-status"]!,
              apiEvent({
                method: "GET",
                resource: "/file/status/{requestId}",
                path: `/file/status/${requestId}`,
                appKey: ws.appKey,
                pathParameters: { requestId },
              }),
            ),
            200,
          ),
        );
        record(
          "download-files",
          expectStatus(
            await cold(
              deployed["download-files"]!,
              apiEvent({
                method: "GET",
                resource: "/file/download/{requestId}",
                path: `/file/download/${requestId}`,
                appKey: ws.appKey,
                pathParameters: { requestId },
              }),
            ),
            200,
          ),
        );
      }
      if (i === n - 1) {
        // Once: the inputs of the cost model's async 100-file request (its first render batch).
        const contents = Array.from({ length: 100 }, (_, k) => ({ fileName: `cold-${k}`, params }));
        record(
          ASYNC_100,
          expectStatus(
            await cold(
              deployed["generate-async"]!,
              apiEvent({
                method: "POST",
                resource: "/file/async/multiple",
                path: "/file/async/multiple",
                appKey: ws.appKey,
                body: { designId, version: 1, contents },
              }),
              { QUEUE_RENDER: benchQueue },
              1,
            ),
            202,
          ),
        );
        const batch = await receive(sqs, benchQueue, RENDER_BATCH);
        record(
          RENDER_BATCH_LABEL,
          expectStatus(await cold(deployed.render!, sqsEvent(batch, Attributes!.QueueArn!)), "ok"),
        );
        await drain(sqs, benchQueue);
      }
      log(
        `  round ${i + 1}/${n}: sync first PDF ${fmt(sync.answered)} ms, render ${fmt(render.pdfPrinted ?? Number.NaN)} ms, floor ${fmt(floor?.answered ?? Number.NaN)} ms`,
      );
    }
    if (callsOnly) return awsTable(runs);
    if (syncOnly) return coldTable(runs);
    return [...coldTable(runs), "", `Unzipped code + layers (MB, limit 250): ${sizes}`, "", ...awsTable(runs)];
  } finally {
    // The profiled bundle, source maps too, beside its profile: the profile names its files by these paths.
    if (profileDir && profiledCode)
      cpSync(profiledCode, join(profileDir, "work", relative(work, profiledCode)), { recursive: true });
    rmSync(work, { recursive: true, force: true });
  }
}

function expectStatus(run: ColdRun, status: number | string): ColdRun {
  if (run.status !== status) throw new Error(`cold run answered ${run.status}, expected ${status}: ${run.body ?? ""}`);
  return run;
}

/** p50 / p95 of one milestone over the runs, "–" where the function has none. */
function spread(runs: ColdRun[], pick: (r: ColdRun) => number | undefined): string {
  const values = runs.map(pick).filter((v): v is number => v !== undefined);
  return values.length ? `${fmt(percentile(values, 50))} / ${fmt(percentile(values, 95))}` : "–";
}

/** The cold table in Markdown: ms from process start, p50 / p95 over the runs; first PDF also over the floor of the same round. */
function coldTable(runs: Map<string, ColdRun[]>): string[] {
  const lines = [
    "| cold process (N each) | → handler ready | → browser launched | → first PDF | ÷ floor (p50 of rounds) | → answered | Node CPU ms |",
    "|---|---|---|---|---|---|---|",
  ];
  const floor = runs.get(FLOOR)!;
  for (const [label, list] of runs) {
    // The sync function's first PDF is its first body byte; the worker's is the rendered file.
    const pdf = label.startsWith("generate-sync") ? (r: ColdRun) => r.answered : (r: ColdRun) => r.pdfPrinted;
    const ratios = list
      .map((r, i) => (pdf(r) === undefined ? undefined : pdf(r)! / floor[i]!.answered))
      .filter((v): v is number => v !== undefined);
    const ratio = ratios.length ? fmt(percentile(ratios, 50), 2) : "–";
    lines.push(
      `| ${label} (${list.length}) | ${spread(list, (r) => r.ready)} | ${spread(list, (r) => r.browserLaunched)} | ${spread(list, pdf)} | ${ratio} | ${spread(list, (r) => r.answered)} | ${spread(list, (r) => r.cpuMs)} |`,
    );
  }
  return lines;
}

/** The cost model's inputs: AWS calls of one invocation of each (the last run; they do not vary). */
function awsTable(runs: Map<string, ColdRun[]>): string[] {
  const lines = [
    "| invocation | cold: to the end, ms | warm: median ms | AWS calls (cold) | DynamoDB WRU | RRU |",
    "|---|---|---|---|---|---|",
  ];
  for (const [label, list] of runs) {
    const { aws, done } = list.at(-1)!;
    if (
      !aws ||
      label.includes(", browser") ||
      label.includes(", with ") ||
      label.includes(", V8 compile") ||
      label.includes(", the bundle in")
    )
      continue;
    const calls = Object.entries(aws.calls)
      .map(([op, count]) => `${op} ${count}`)
      .join(", ");
    const warm = list.map((r) => r.warmMs).filter((v): v is number => v !== undefined);
    lines.push(
      `| ${label} | ${fmt(done ?? Number.NaN)} | ${warm.length ? fmt(percentile(warm, 50)) : "–"} | ${calls} | ${fmt(aws.wru, 1)} | ${fmt(aws.rru, 1)} |`,
    );
  }
  return lines;
}
