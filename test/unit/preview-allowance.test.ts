import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { countPreviewPages, type PreviewAllowanceDeps } from "#shared/limits/preview-allowance.ts";
import type { Plan, Workspace } from "#shared/workspaces/workspace-store.ts";
import { MemoryPageCounter } from "../helpers/memory-limits.ts";
import { fixedClock } from "../helpers/memory-requests.ts";
import { refusal } from "../helpers/refusal.ts";

/**
 * The preview allowance (shared/limits/README.md#preview-allowance) over an in-memory counter: one page reserved
 * before the render, the rest after, never past the plan's allowance.
 */

const MONTH = "2026-03";
const workspaces: Record<string, Workspace> = Object.fromEntries(
  ["ws_free", "ws_none", "ws_gold"].map((id) => [
    id,
    {
      id,
      name: id,
      ...(id === "ws_free" && { plan: "free" as Plan }),
      ...(id === "ws_gold" && { plan: "gold" as Plan }),
      appKeyRotatedAt: "",
      createdAt: "",
    },
  ]),
);
let counter: MemoryPageCounter;
let deps: PreviewAllowanceDeps;
const rendered = (pageCount: number) => async () => ({ pageCount });

beforeEach(() => {
  vi.stubEnv("PLATEN_PREVIEW_PAGES", JSON.stringify({ free: 5 }));
  counter = new MemoryPageCounter();
  deps = { clock: fixedClock("2026-03-31T23:59:30Z"), counter, workspace: async (id) => workspaces[id] };
});
afterEach(() => vi.unstubAllEnvs());

describe("countPreviewPages", () => {
  it("counts each preview's pages in the clock's UTC month", async () => {
    expect(await countPreviewPages("ws_free", rendered(3), deps)).toEqual({ pageCount: 3 });
    await countPreviewPages("ws_free", rendered(2), deps);
    expect(await counter.used("ws_free", MONTH)).toBe(5);
  });

  it("refuses a spent allowance before rendering (403 PREVIEW_ALLOWANCE_EXCEEDED), counting nothing", async () => {
    await countPreviewPages("ws_free", rendered(5), deps);
    const render = vi.fn(rendered(1));
    const err = await refusal(countPreviewPages("ws_free", render, deps));
    expect([err.code, err.status, err.vars]).toEqual(["PREVIEW_ALLOWANCE_EXCEEDED", 403, { used: 5, limit: 5 }]);
    expect(render).not.toHaveBeenCalled();
    expect(await counter.used("ws_free", MONTH)).toBe(5);
  });

  it("refuses a preview longer than what is left after rendering it, counting none of its pages", async () => {
    await countPreviewPages("ws_free", rendered(3), deps);
    const err = await refusal(countPreviewPages("ws_free", rendered(3), deps));
    expect(err.code).toBe("PREVIEW_ALLOWANCE_EXCEEDED");
    expect(err.details[0]).toMatchObject({ field: "pages" });
    expect(await counter.used("ws_free", MONTH)).toBe(3);
    await countPreviewPages("ws_free", rendered(2), deps);
    expect(await counter.used("ws_free", MONTH)).toBe(5);
  });

  it("returns the reserved page of a render that fails", async () => {
    const failing = async (): Promise<{ pageCount: number }> => {
      throw new Error("template failed");
    };
    await expect(countPreviewPages("ws_free", failing, deps)).rejects.toThrow("template failed");
    expect(await counter.used("ws_free", MONTH)).toBe(0);
  });

  it("refuses a workspace without a plan or with an inactive one, as generation does", async () => {
    expect((await refusal(countPreviewPages("ws_none", rendered(1), deps))).code).toBe("PLAN_NOT_FOUND");
    expect((await refusal(countPreviewPages("ws_gold", rendered(1), deps))).code).toBe("ACTIVE_PLAN_NOT_FOUND");
    expect((await refusal(countPreviewPages("ws_missing", rendered(1), deps))).code).toBe("PLAN_NOT_FOUND");
  });
});
