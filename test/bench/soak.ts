import { cpus } from "node:os";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { reconcileUsage, storedReconcilePorts } from "#shared/generation/settle/index.ts";
import { monthOf } from "#shared/limits/page-quota.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { watchHealth } from "../helpers/limit-fixtures.ts";
import { pagesUsedNow } from "../helpers/limits-stack.ts";
import { removeDataDir, startStack } from "../helpers/local-stack.ts";
import { fileRecordsOfWorkspace, useStackEmulators } from "../helpers/stack-clients.ts";
import { fmt, percentile } from "./stats.ts";

/**
 * `npm run soak`: one workspace sends SOAK_FILES invoices of 1–25 rows (one or two pages; default
 * 20,000: ten times the reference load of 2,000 files a minute, infra/README.md#capacity-model)
 * through the async API in requests of 100, SOAK_AT_ONCE requests in flight at a time (default 10;
 * 200 sends a 10× load at once), plus SOAK_SYNC sync singles (default 40) at the same time, on the
 * local stack. Then: every file rendered (nothing lost), the pages billed equal the pages delivered,
 * for the month and for every request (`usage reconcile`, shared/limits/README.md#billing-reconciliation),
 * and the health check answered throughout. Prints the figures for the README.
 */
const total = Number(process.env.SOAK_FILES ?? 20_000);
const atOnce = Number(process.env.SOAK_AT_ONCE ?? 10);
const syncSingles = Number(process.env.SOAK_SYNC ?? 40);
const perRequest = 100;
const log = (line = "") => console.log(line);

const bundle = await loadBundleFromDir("shared/designs/samples/invoice-ja");
const sample = bundle.manifest.sampleParams ?? {};
const [row] = (sample.明細 as Record<string, unknown>[] | undefined) ?? [{}];
/** The sample invoice with 1–25 rows (the 26th file of a cycle has 1 again): one page, or two from ~15 rows. */
const paramsOf = (i: number) => ({ ...sample, 明細: Array.from({ length: 1 + (i % 25) }, () => row) });
log(
  `Platen soak — ${cpus().length} × ${cpus()[0]?.model.trim()}, ${total} files in requests of ${perRequest}, ` +
    `${atOnce} at once, ${syncSingles} sync singles`,
);
const stack = await startStack({ env: { PLATEN_ACCESS_LOG: "0" } });
useStackEmulators(stack.dataDir);
const demo = stack.localJson.workspaces[0]!;
const invoice = demo.designs.find((d) => d.label.includes("請求書"))!.id;
const pagesBefore = await pagesUsedNow(stack, demo.id);
const health = watchHealth(stack, 1000);

const started = performance.now();
const requestIds: string[] = [];
const acceptMs: number[] = [];
async function sendRequest(sent: number): Promise<void> {
  const contents = Array.from({ length: Math.min(perRequest, total - sent) }, (_, i) => ({
    fileName: `soak-${sent + i}`,
    params: paramsOf(sent + i),
  }));
  const t = performance.now();
  const res = await fetch(`${stack.baseUrl}/file/async/multiple`, {
    method: "POST",
    headers: { appkey: demo.appKey, "content-type": "application/json" },
    body: JSON.stringify({ designId: invoice, version: 1, contents }),
  });
  acceptMs.push(performance.now() - t);
  if (res.status === 202) requestIds.push(((await res.json()) as { requestId: string }).requestId);
  else refused.push(`${res.status} ${await res.text()}`);
}
/** Acceptances that did not answer 202: the soak fails with them, after the accepted ones end. */
const refused: string[] = [];
/** The sync singles, beside the async load: each answered PDF's pages (X-Page-Count). */
async function sendSync(i: number): Promise<number> {
  const res = await fetch(`${stack.baseUrl}/file/sync/single`, {
    method: "POST",
    headers: { appkey: demo.appKey, "content-type": "application/json" },
    body: JSON.stringify({
      designId: invoice,
      version: 1,
      content: { fileName: `soak-sync-${i}`, params: paramsOf(i) },
    }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`sync single answered ${res.status}`);
  return Number(res.headers.get("x-page-count"));
}
const syncPages = Promise.all(Array.from({ length: syncSingles }, (_, i) => sendSync(i)));
const offsets = Array.from({ length: Math.ceil(total / perRequest) }, (_, k) => k * perRequest);
await Promise.all(
  Array.from({ length: Math.max(1, atOnce) }, async () => {
    for (let next = offsets.shift(); next !== undefined; next = offsets.shift()) await sendRequest(next);
  }),
);
const syncDelivered = (await syncPages).reduce((n, p) => n + p, 0);
const acceptedSeconds = (performance.now() - started) / 1000;
if (refused.length) {
  log(`${refused.length} acceptance(s) refused, the first: ${refused[0]}`);
  const errors = stack
    .output()
    .split("\n")
    .filter((line) => /"level":\s*"(error|ERROR)"/.test(line));
  for (const line of errors.slice(0, 5)) log(`  ${line.slice(0, 1500)}`);
}
log(
  `accepted ${requestIds.length * perRequest} files in ${fmt(acceptedSeconds, 1)} s (202 p50 ${fmt(percentile(acceptMs, 50))} ms)`,
);

const pending = new Set(requestIds);
let lastReport = performance.now();
while (pending.size > 0) {
  for (const id of [...pending]) {
    const res = await fetch(`${stack.baseUrl}/file/status/${id}`, { headers: { appkey: demo.appKey } });
    const { status } = (await res.json()) as { status: string };
    if (status === "completed" || status === "failed") pending.delete(id);
  }
  if (performance.now() - lastReport > 30_000) {
    lastReport = performance.now();
    log(
      `  ${requestIds.length - pending.size}/${requestIds.length} requests finished after ${fmt((performance.now() - started) / 1000)} s`,
    );
  }
  if (pending.size > 0) await new Promise((r) => setTimeout(r, 2000));
}
const seconds = (performance.now() - started) / 1000;
const samples = await health.stop();

const records = (await fileRecordsOfWorkspace(demo.id)).filter(
  (r) => String(r.fileName).startsWith("soak-") && !String(r.fileName).startsWith("soak-sync-"),
);
const done = records.filter((r) => r.status === "done");
const delivered = done.reduce((n, r) => n + Number(r.pageCount ?? 0), 0) + syncDelivered;
const billed = (await pagesUsedNow(stack, demo.id)) - pagesBefore;
// Request by request: each request's own page item against the pages of its delivered files.
const workspace = await getWorkspace(demo.id);
const reconciled = await reconcileUsage(workspace!, monthOf(new Date()), storedReconcilePorts);
const soakRequests = new Set(requestIds);
const judged = reconciled.differences.filter((d) => soakRequests.has(d.requestId) || d.source === "sync");
for (const d of judged) log(`  request ${d.requestId} (${d.source}): billed ${d.billed}, delivered ${d.delivered}`);
const healthy = samples.filter((s) => s.status === 200);
log(
  `finished in ${fmt(seconds, 1)} s (${fmt(total / seconds, 1)} files/s): ${done.length}/${total} files rendered, ` +
    `${records.length - done.length} not; pages billed ${billed}, delivered ${delivered} (${syncDelivered} of them by ${syncSingles} sync singles); ` +
    `${judged.length} request(s) billed differently from their files, ${reconciled.pending.length} still in flight`,
);
log(
  `health check: ${healthy.length}/${samples.length} answered 200, p50 ${fmt(
    percentile(
      samples.map((s) => s.ms),
      50,
    ),
  )} ms, ` +
    `p99 ${fmt(
      percentile(
        samples.map((s) => s.ms),
        99,
      ),
    )} ms, slowest ${fmt(Math.max(...samples.map((s) => s.ms)))} ms`,
);
const ok =
  refused.length === 0 &&
  done.length === total &&
  records.length === total &&
  billed === delivered &&
  judged.length === 0 &&
  reconciled.pending.length === 0 &&
  healthy.length === samples.length;
log(
  ok
    ? "soak: nothing lost, billed = delivered for the month and every request, health answered throughout"
    : "soak: FAILED (see above)",
);
await stack.stop();
removeDataDir(stack.dataDir);
process.exit(ok ? 0 : 1);
