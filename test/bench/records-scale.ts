import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { counterpartySearchForm, type KeptRecord, sealRecord, sha256Hex } from "#shared/records/index.ts";
import { recordItem } from "#shared/records/dynamo-record-store.ts";
import { createWorkspace } from "#shared/workspaces/workspace-store.ts";
import { removeDataDir, startStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { fmt, percentile } from "./stats.ts";

/**
 * Records at scale (shared/records/README.md#key-design): one workspace with RECORDS_N (default 100,000)
 * records of one year, chained as generation chains them, written straight into the records table; then
 * over HTTP: a one-month search with an amount range (p50/p95 of the first page), a one-year counterparty
 * search (all pages), and the full year's CSV export. `node --import tsx test/bench/records-scale.ts`.
 */
const N = Number(process.env.RECORDS_N ?? 100_000);
const SEARCHES = Number(process.env.RECORDS_SEARCHES ?? 40);
const log = (line = "") => console.log(line);
const COUNTERPARTIES = Array.from({ length: 2000 }, (_, i) => `株式会社取引先${String(i).padStart(4, "0")}`);

/** A deterministic pseudo-random sequence, so two runs write the same year. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

const stack = await startStack({ env: { PLATEN_ACCESS_LOG: "0" } });
try {
  useStackEmulators(stack.dataDir);
  const { workspace, appKey } = await createWorkspace({ name: "records bench", plan: "standard" }, systemClock);
  const next = random(42);
  const started = performance.now();
  let head: KeptRecord | undefined;
  let batch: Record<string, unknown>[] = [];
  const writes: Promise<unknown>[] = [];
  for (let n = 1; n <= N; n++) {
    const day = new Date(Date.UTC(2026, 0, 1) + Math.floor(next() * 365) * 86_400_000).toISOString().slice(0, 10);
    const counterparty = COUNTERPARTIES[Math.floor(next() * COUNTERPARTIES.length)]!;
    head = sealRecord(
      {
        recordId: `bench-${n}`,
        workspaceId: workspace.id,
        type: "invoice",
        date: day,
        amount: 1000 + Math.floor(next() * 999_000),
        currency: "JPY",
        counterparty,
        counterpartySearch: counterpartySearchForm(counterparty),
        number: `INV-${String(n).padStart(6, "0")}`,
        designId: "bench",
        version: 1,
        requestId: "bench",
        fileId: `bench-${n}`,
        fileName: `請求書-${n}`,
        sha256: sha256Hex(Buffer.from(String(n))),
        createdAt: new Date().toISOString(),
      },
      head,
    );
    batch.push(recordItem(head));
    if (batch.length === 25 || n === N) {
      const items = batch;
      batch = [];
      writes.push(writeBatch(items));
      if (writes.length >= 16) await Promise.all(writes.splice(0));
    }
  }
  await Promise.all(writes);
  log(`wrote ${N} records in ${fmt((performance.now() - started) / 1000, 1)} s`);

  const get = async (path: string) => {
    const t = performance.now();
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { appkey: appKey } });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.toString().slice(0, 300)}`);
    return { ms: performance.now() - t, body };
  };
  const month = async () => {
    const m = String(1 + Math.floor(next() * 12)).padStart(2, "0");
    const min = 1000 + Math.floor(next() * 900_000);
    return (await get(`/records?dateFrom=2026-${m}-01&dateTo=2026-${m}-28&amountMin=${min}&amountMax=${min + 50_000}`))
      .ms;
  };
  await month(); // the first request warms the function
  const months: number[] = [];
  for (let i = 0; i < SEARCHES; i++) months.push(await month());
  log(
    `one-month search with an amount range, first page: p50 ${fmt(percentile(months, 50))} ms, p95 ${fmt(percentile(months, 95))} ms (${SEARCHES} searches)`,
  );

  const years: number[] = [];
  for (let i = 0; i < 5; i++) {
    const who = encodeURIComponent(COUNTERPARTIES[Math.floor(next() * COUNTERPARTIES.length)]!);
    let total = 0;
    let matches = 0;
    let cursor: string | undefined;
    do {
      const page = await get(
        `/records?dateFrom=2026-01-01&dateTo=2026-12-31&counterparty=${who}${cursor ? `&cursor=${cursor}` : ""}`,
      );
      total += page.ms;
      const json = JSON.parse(page.body.toString()) as { records: unknown[]; next?: string };
      matches += json.records.length;
      cursor = json.next;
    } while (cursor);
    years.push(total);
    log(`  one-year counterparty search: ${matches} records in ${fmt(total)} ms`);
  }
  log(`one-year counterparty search, all pages: p50 ${fmt(percentile(years, 50))} ms`);

  const exported = await get("/records/export?dateFrom=2026-01-01&dateTo=2026-12-31");
  const rows = exported.body.toString("utf8").split("\r\n").filter(Boolean).length - 1;
  log(
    `full-year export: ${rows} rows, ${fmt(exported.body.length / 1024 / 1024, 1)} MiB in ${fmt(exported.ms / 1000, 1)} s`,
  );
} finally {
  await stack.stop();
  removeDataDir(stack.dataDir);
}

async function writeBatch(items: Record<string, unknown>[]): Promise<void> {
  let pending: { PutRequest?: { Item: Record<string, unknown> | undefined } }[] = items.map((Item) => ({
    PutRequest: { Item },
  }));
  while (pending.length) {
    const out = await awsClients().ddb.send(
      new BatchWriteCommand({ RequestItems: { [config().tables.records]: pending } }),
    );
    pending = out.UnprocessedItems?.[config().tables.records] ?? [];
  }
}
