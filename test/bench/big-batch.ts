import type { AwsCalls } from "#infra/local/aws-calls.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import type { RunningStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { asyncMultipleOf } from "./async-multiple.ts";
import type { startFloor } from "./floor.ts";
import { fmt, runConcurrent } from "./stats.ts";

type Floor = Awaited<ReturnType<typeof startFloor>>;

interface StatusBody {
  status: string;
  files: { fileId: string; pageCount?: number }[];
  failedFiles?: unknown[];
}

/**
 * Big batches (test/bench/README.md#big-batches): `requests` async requests of 100 files each, sent at once,
 * against the same number of renders on the floor's browsers (as many as the stack renders with), floor before
 * and after. It counts that every file ended `done` once and that the pages billed equal the pages delivered,
 * and reports what the stack asked of AWS per file: DynamoDB write units and calls, SQS messages (the local
 * stack's count, `/__local/aws-calls`).
 */
export async function runBigBatchPhase(
  stack: RunningStack,
  floor: Floor,
  bundle: DesignBundle,
  sample: Record<string, unknown>,
  requests: number,
): Promise<string[]> {
  const route = asyncMultipleOf(stack);
  const ws = stack.localJson.workspaces[0]!;
  const files = requests * 100;
  const contents = Array.from({ length: 100 }, (_, i) => ({ fileName: `invoice-${i}`, params: sample }));
  const floorRun = async () =>
    (await runConcurrent(files, floor.pids().length, async () => void (await floor.render(bundle, sample)))).seconds;
  const hook = async (method: "GET" | "POST") =>
    (await (await fetch(`${stack.baseUrl.replace(/\/v1$/, "")}/__local/aws-calls`, { method })).json()) as AwsCalls;
  useStackEmulators(stack.dataDir);
  const month = new Date().toISOString().slice(0, 7);

  await route.waitEnded((await route.accept(contents)).requestId); // warm
  const floorBefore = await floorRun();
  const billedBefore = await dynamoPageCounter.used(ws.id, month);
  await hook("POST");
  const start = Date.now();
  const accepted = await Promise.all(Array.from({ length: requests }, () => route.accept(contents)));
  const ended = await Promise.all(accepted.map((a) => route.waitEnded(a.requestId, requests)));
  const seconds = (Math.max(...ended) - start) / 1000;
  const calls = await hook("GET");
  const billed = (await dynamoPageCounter.used(ws.id, month)) - billedBefore;
  const floorAfter = await floorRun();

  let done = 0;
  let failed = 0;
  let pages = 0;
  const fileIds = new Set<string>();
  for (const { requestId } of accepted) {
    const res = await fetch(`${stack.baseUrl}/file/status/${requestId}`, { headers: { appkey: ws.appKey } });
    const body = (await res.json()) as StatusBody;
    if (body.status !== "completed") failed += 100;
    failed += body.failedFiles?.length ?? 0;
    for (const f of body.files) {
      done++;
      fileIds.add(f.fileId);
      pages += f.pageCount ?? 0;
    }
  }
  const floorSeconds = (floorBefore + floorAfter) / 2;
  const writes = Object.entries(calls.calls)
    .filter(([op]) => /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/.test(op))
    .reduce((n, [, c]) => n + c, 0);
  const perFile = (n: number) => fmt(n / files, 2);
  return [
    `${requests === 1 ? "1 async request of 100 files" : `${requests} async requests of 100 files at once (${files} files)`}: completed in ${fmt(seconds, 2)} s; the floor's ${files} renders on ${floor.pids().length} browser(s) ${fmt(floorBefore, 2)} s before, ${fmt(floorAfter, 2)} s after (×${fmt(seconds / floorSeconds, 2)}; target ≤ 1.15)`,
    `  counted: ${done} files done (${fileIds.size} distinct), ${failed} failed; ${pages} pages delivered, ${billed} billed${billed === pages && done === files && fileIds.size === files ? " — nothing lost, nothing billed twice" : " — MISMATCH"}`,
    `  per file: ${perFile(calls.wru)} DynamoDB WRU (${perFile(writes)} write calls, ${perFile(calls.rru)} RRU), ${perFile(calls.messages)} SQS messages sent (${perFile(calls.calls["sqs:SendMessageBatch"] ?? 0)} SendMessageBatch, ${perFile(calls.calls["sqs:SendMessage"] ?? 0)} SendMessage, ${perFile(calls.calls["sqs:ReceiveMessage"] ?? 0)} ReceiveMessage calls)`,
    `  calls per file: ${Object.entries(calls.calls)
      .sort(([, a], [, b]) => b - a)
      .map(([op, c]) => `${op} ${perFile(c)}`)
      .join(", ")}`,
  ];
}
