import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "#shared/clock.ts";
import { listOutputHistory, matchesSearch } from "#shared/site/history-query.ts";
import { acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { invoiceItem, invoiceOf, mismatchedItem } from "../helpers/async-fixtures.ts";
import { type RunningStack, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { generateFile } from "../helpers/site-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

type Workspace = RunningStack["localJson"]["workspaces"][number];

let stack: SharedStack;
/** Workspaces of this file's own, shaped like local.json's seeded two. */
let seeded: [Workspace, Workspace];
const requestIds: string[] = [];
let partialId: string;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  seeded = [
    await createSeededLike(stack, "Output history A"),
    await createSeededLike(stack, "Output history B", "free"),
  ];
  const [ws, other] = seeded;
  for (let i = 0; i < 5; i++) {
    requestIds.push(
      (
        await generateFile(stack, ws, {
          fileName: `sync-${i}`,
          passthrough: { customer: i % 2 ? "ACME Corp" : "Globex", order: 1000 + i },
        })
      ).requestId,
    );
  }
  const design = invoiceOf(ws);
  const accepted = await acceptOrFail(stack, ws.appKey, "multiple", {
    designId: design.id,
    version: design.latestVersion,
    contents: [invoiceItem("good", { passthrough: { customer: "Initech" } }), mismatchedItem("bad")],
  });
  partialId = accepted.requestId;
  await pollStatus(stack, ws.appKey, partialId);
  await generateFile(stack, other, { fileName: "elsewhere", passthrough: { customer: "ACME Corp" } });
  await settled(stack);
});

afterAll(() => stack?.release());

describe("output history listing", () => {
  it("lists the workspace's requests newest first, with their files, and nothing of other workspaces", async () => {
    const page = await listOutputHistory(seeded[0].id, {}, systemClock);
    expect(page.requests.map((r) => r.requestId)).toEqual([partialId, ...[...requestIds].reverse()]);
    const partial = page.requests[0]!;
    expect(partial.status).toBe("completed");
    expect(partial.files.map((f) => [f.fileName, f.status])).toEqual([
      ["good", "done"],
      ["bad", "failed"],
    ]);
    expect(page.next).toBeUndefined();
  });

  it("pages with an opaque cursor that only continues the same workspace", async () => {
    const wsId = seeded[0].id;
    const first = await listOutputHistory(wsId, { pageSize: 4 }, systemClock);
    expect(first.requests).toHaveLength(4);
    expect(first.next).toBeDefined();
    const second = await listOutputHistory(wsId, { pageSize: 4, cursor: first.next }, systemClock);
    expect(second.requests.map((r) => r.requestId)).toEqual([requestIds[1], requestIds[0]]);
    expect(second.next).toBeUndefined();
    const foreign = await listOutputHistory(seeded[1].id, { pageSize: 4, cursor: first.next }, systemClock);
    expect(foreign.requests.map((r) => r.files[0]!.fileName)).toEqual(["elsewhere"]);
  });

  it("searches the passthrough search metadata: key=value exactly, or text in any value", async () => {
    const wsId = seeded[0].id;
    const exact = await listOutputHistory(wsId, { search: "customer=ACME Corp" }, systemClock);
    expect(exact.requests.map((r) => r.requestId).sort()).toEqual([requestIds[1], requestIds[3]].sort());
    const number = await listOutputHistory(wsId, { search: "order=1004" }, systemClock);
    expect(number.requests.map((r) => r.requestId)).toEqual([requestIds[4]]);
    const text = await listOutputHistory(wsId, { search: "initech" }, systemClock);
    expect(text.requests.map((r) => r.requestId)).toEqual([partialId]);
    expect((await listOutputHistory(wsId, { search: "customer=acme" }, systemClock)).requests).toEqual([]);
  });
});

describe("search matching (search metadata, shared/render/README.md#pdf-post-processing-and-rfparams)", () => {
  it("indexes only top-level strings (trimmed) and finite numbers", () => {
    expect(matchesSearch({ a: "  x  " }, "a=x")).toBe(true);
    expect(matchesSearch({ n: 1e21 }, "n=1000000000000000000000")).toBe(true);
    expect(matchesSearch({ a: "" }, "a=")).toBe(false);
    expect(matchesSearch({ a: "long".repeat(100) }, `a=${"long".repeat(100)}`)).toBe(false); // cut at 256 characters
    expect(matchesSearch(undefined, "")).toBe(true);
  });
});
