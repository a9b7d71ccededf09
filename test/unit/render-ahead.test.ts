import { describe, expect, it } from "vitest";
import { type PreparedSync, renderAll } from "#shared/generation/sync/sync-generation.ts";
import { planMemory, renderAhead } from "#shared/generation/sync/render-ahead.ts";
import type { Renderer } from "#shared/render/renderer.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";

/** One container's plan memory, shared by the cases as by the requests of a container. */
const plans = planMemory();

/** A renderer that counts its prints and answers a one-page PDF. */
function countingRenderer() {
  const printed: string[] = [];
  const renderer = {
    printPdf: async (req: { html: string }) => {
      printed.push(req.html);
      return { pdf: Buffer.from("%PDF-1.7"), pageCount: 1 };
    },
  } as unknown as Renderer;
  return { renderer, printed };
}

const prepared = (mode: "single" | "multiple"): PreparedSync =>
  ({
    request: { mode, designId: "d", version: 1, contents: [{ fileName: "a", params: {} }] },
    design: {},
    bundle: { manifest: { pdf: {} } },
    html: async () => ({ html: "<p>a</p>" }),
  }) as unknown as PreparedSync;

const workspace = (id: string, plan: string): Workspace => ({
  id,
  name: id,
  plan: plan as Workspace["plan"],
  appKeyRotatedAt: "",
  createdAt: "",
});

describe("rendering a sync single ahead of its admission (render-ahead.ts)", () => {
  it("renders ahead only for a workspace last seen on a plan that never stops", async () => {
    const { renderer, printed } = countingRenderer();
    plans.remember(workspace("ws-standard", "standard"));
    const ahead = renderAhead(prepared("single"), "ws-standard", { renderer, budgetMs: 1000, plans });
    expect(ahead.rendered).toBeDefined();
    expect(await ahead.rendered!.pdfs).toEqual([{ pdf: Buffer.from("%PDF-1.7"), pageCount: 1 }]);
    expect(printed).toEqual(["<p>a</p>"]);
  });

  it("never for a stopping plan (pages are reserved first), an unseen workspace, a plan-less one or a multiple", () => {
    const { renderer, printed } = countingRenderer();
    plans.remember(workspace("ws-free", "free"));
    plans.remember(workspace("ws-none", ""));
    plans.remember(workspace("ws-standard-2", "standard"));
    for (const [mode, id] of [
      ["single", "ws-free"],
      ["single", "ws-unseen"],
      ["single", "ws-none"],
      ["multiple", "ws-standard-2"],
    ] as const) {
      expect(renderAhead(prepared(mode), id, { renderer, budgetMs: 1000, plans }).rendered).toBeUndefined();
    }
    expect(printed).toEqual([]);
  });

  it("follows a plan change: a workspace moved to a stopping plan is no longer rendered ahead", () => {
    const { renderer } = countingRenderer();
    plans.remember(workspace("ws-moved", "premium"));
    expect(renderAhead(prepared("single"), "ws-moved", { renderer, budgetMs: 1000, plans }).rendered).toBeDefined();
    plans.remember(workspace("ws-moved", "personal"));
    expect(renderAhead(prepared("single"), "ws-moved", { renderer, budgetMs: 1000, plans }).rendered).toBeUndefined();
  });

  it("a failed render ahead rejects only when awaited (never an unhandled rejection)", async () => {
    const renderer = { printPdf: async () => Promise.reject(new Error("boom")) } as unknown as Renderer;
    plans.remember(workspace("ws-fail", "standard"));
    const ahead = renderAhead(prepared("single"), "ws-fail", { renderer, budgetMs: 1000, plans });
    await new Promise((r) => setTimeout(r, 10));
    await expect(ahead.rendered!.pdfs).rejects.toMatchObject({ code: "INTERNAL_ERROR" });
    await ahead.rendered!.started; // ends with the renders that never got a browser
  });

  it("`started` resolves when the first document's browser is taken, before its PDF exists", async () => {
    let finish: () => void = () => {};
    const renderer = {
      printPdf: async (req: { onBrowser?: () => void }) => {
        req.onBrowser?.();
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        return { pdf: Buffer.from("%PDF-1.7"), pageCount: 1 };
      },
    } as unknown as Renderer;
    const renders = renderAll(prepared("single"), { renderer, budgetMs: 1000 });
    let pdfsDone = false;
    void renders.pdfs.then(() => {
      pdfsDone = true;
    });
    await renders.started;
    expect(pdfsDone).toBe(false);
    finish();
    expect(await renders.pdfs).toHaveLength(1);
  });
});
