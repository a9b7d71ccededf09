import { describe, expect, it } from "vitest";
import type { FileRecord } from "#shared/generation/store/index.ts";
import { type HistoryPorts, listOutputHistory, matchesSearch } from "#shared/site/history-query.ts";
import { fileRecord, fixedClock } from "../helpers/memory-requests.ts";

/**
 * The output-history search (functions/site/README.md) costs one match per file record read at most, so
 * its work grows with the records read and not with their square; and it stops after its time budget,
 * saying the page is partial and where to go on.
 */

const clock = fixedClock("2026-01-01T01:00:00.000Z");

/** `requests` requests of `filesEach` files, newest first, as the index answers them (200 per read). */
function store(requests: number, filesEach: number, tick = 0) {
  const items: (FileRecord & { pk: string; sk: string })[] = [];
  for (let r = 0; r < requests; r++)
    for (let f = 0; f < filesEach; f++) {
      const requestId = `req_${String(requests - r).padStart(6, "0")}`;
      const record = fileRecord({ requestId, fileId: `${requestId}_${f}`, index: f });
      const passthrough = r % 500 === 499 && f === 0 ? { order: `rare-${r}` } : { order: `plain-${r}-${f}` };
      items.push({ ...record, pk: `REQ#${requestId}`, sk: `FILE#${f}`, passthrough });
    }
  let clockMs = 0;
  const counts = { comparisons: 0, reads: 0 };
  const ports: HistoryPorts = {
    readPage: async (_ws, start) => {
      counts.reads += 1;
      clockMs += tick;
      const from = start ? Number(String(start.sk).split("|")[1]) : 0;
      const next = from + 200 < items.length ? { pk: "x", sk: `FILE#|${from + 200}`, createdAt: "c" } : undefined;
      return { items: items.slice(from, from + 200), ...(next && { lastKey: next }) };
    },
    matches: (passthrough, query) => {
      counts.comparisons += 1;
      return matchesSearch(passthrough, query);
    },
    now: () => clockMs,
  };
  return { ports, counts, items };
}

describe("output-history search cost", () => {
  it("matches each record read at most once: 2,000 one-file requests cost at most 2,000 comparisons", async () => {
    const { ports, counts } = store(2_000, 1);
    const page = await listOutputHistory("ws_a", { search: "rare" }, clock, ports);
    expect(page.requests.map((r) => r.files[0]!.passthrough?.order)).toEqual([
      "rare-499",
      "rare-999",
      "rare-1499",
      "rare-1999",
    ]);
    expect(counts.comparisons).toBeLessThanOrEqual(2_000);
  });

  it("grows linearly: four times the records cost at most four times the comparisons", async () => {
    const small = store(250, 2);
    await listOutputHistory("ws_a", { search: "nothing-matches" }, clock, small.ports);
    const large = store(1_000, 2);
    await listOutputHistory("ws_a", { search: "nothing-matches" }, clock, large.ports);
    expect(small.counts.comparisons).toBe(500);
    expect(large.counts.comparisons).toBe(2_000);
  });

  it("a request that matched is not matched again for its other files", async () => {
    const { ports, counts } = store(10, 50);
    const page = await listOutputHistory("ws_a", { search: "plain" }, clock, ports);
    expect(page.requests).toHaveLength(10);
    expect(counts.comparisons).toBe(10);
  });
});

describe("output-history search time budget", () => {
  it("stops reading after its budget and says the page is partial, with the cursor to go on", async () => {
    const { ports, counts } = store(2_000, 1, 400);
    const page = await listOutputHistory("ws_a", { search: "rare", budgetMs: 1_000 }, clock, ports);
    expect(counts.reads).toBe(3);
    expect(page.partial).toBe(true);
    expect(page.next).toBeTruthy();
    expect(page.requests.map((r) => r.files[0]!.passthrough?.order)).toEqual(["rare-499"]);
  });

  it("a search that read everything is not partial", async () => {
    const { ports } = store(100, 1, 400);
    const page = await listOutputHistory("ws_a", { search: "rare", budgetMs: 1_000 }, clock, ports);
    expect(page.partial).toBeUndefined();
    expect(page.next).toBeUndefined();
  });
});
