import { cpus } from "node:os";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { watchHealth } from "../helpers/limit-fixtures.ts";
import { pagesUsedNow } from "../helpers/limits-stack.ts";
import { removeDataDir, startStack } from "../helpers/local-stack.ts";
import { fileRecordsOfWorkspace, useStackEmulators } from "../helpers/stack-clients.ts";
import { fmt, percentile } from "./stats.ts";

/**
 * `npm run soak`: one workspace sends SOAK_FILES one-page invoices (default 20,000: ten times the
 * reference load of 2,000 files a minute, infra/README.md#capacity-model) through the async API in
 * requests of 100, as fast as acceptance allows, on the local stack. Then: every file rendered
 * (nothing lost), the pages billed equal the pages delivered, and the health check answered
 * throughout. Prints the figures for the README.
 */
const total = Number(process.env.SOAK_FILES ?? 20_000);
const perRequest = 100;
const log = (line = "") => console.log(line);

const bundle = await loadBundleFromDir("shared/designs/samples/invoice-ja");
const params = bundle.manifest.sampleParams ?? {};
log(`Platen soak — ${cpus().length} × ${cpus()[0]?.model.trim()}, ${total} files in requests of ${perRequest}`);
const stack = await startStack({ env: { PLATEN_ACCESS_LOG: "0" } });
useStackEmulators(stack.dataDir);
const demo = stack.localJson.workspaces[0]!;
const invoice = demo.designs.find((d) => d.label.includes("請求書"))!.id;
const pagesBefore = await pagesUsedNow(stack, demo.id);
const health = watchHealth(stack, 1000);

const started = performance.now();
const requestIds: string[] = [];
const acceptMs: number[] = [];
for (let sent = 0; sent < total; sent += perRequest) {
  const contents = Array.from({ length: Math.min(perRequest, total - sent) }, (_, i) => ({
    fileName: `soak-${sent + i}`,
    params,
  }));
  const t = performance.now();
  const res = await fetch(`${stack.baseUrl}/file/async/multiple`, {
    method: "POST",
    headers: { appkey: demo.appKey, "content-type": "application/json" },
    body: JSON.stringify({ designId: invoice, version: 1, contents }),
  });
  acceptMs.push(performance.now() - t);
  if (res.status !== 202) throw new Error(`acceptance answered ${res.status}: ${await res.text()}`);
  requestIds.push(((await res.json()) as { requestId: string }).requestId);
}
const acceptedSeconds = (performance.now() - started) / 1000;
log(`accepted ${total} files in ${fmt(acceptedSeconds, 1)} s (202 p50 ${fmt(percentile(acceptMs, 50))} ms)`);

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

const records = (await fileRecordsOfWorkspace(demo.id)).filter((r) => String(r.fileName).startsWith("soak-"));
const done = records.filter((r) => r.status === "done");
const delivered = done.reduce((n, r) => n + Number(r.pageCount ?? 0), 0);
const billed = (await pagesUsedNow(stack, demo.id)) - pagesBefore;
const healthy = samples.filter((s) => s.status === 200);
log(
  `finished in ${fmt(seconds, 1)} s (${fmt(total / seconds, 1)} files/s): ${done.length}/${total} files rendered, ` +
    `${records.length - done.length} not; pages billed ${billed}, delivered ${delivered}`,
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
  done.length === total && records.length === total && billed === delivered && healthy.length === samples.length;
log(ok ? "soak: nothing lost, billed = delivered, health answered throughout" : "soak: FAILED (see above)");
await stack.stop();
removeDataDir(stack.dataDir);
process.exit(ok ? 0 : 1);
