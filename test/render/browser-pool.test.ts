import { afterEach, describe, expect, it } from "vitest";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { chromiumChildPids, eventually, makeBundle } from "./render-fixtures.ts";

const SLOW = 60_000;
const small = makeBundle("<p>{{ n }} ページ</p>");

describe("browser pool (real Chromium)", () => {
  const renderers: Renderer[] = [];
  const open = (config: Parameters<typeof createRenderer>[0]) => {
    const renderer = createRenderer(config);
    renderers.push(renderer);
    return renderer;
  };
  afterEach(async () => {
    await Promise.all(renderers.splice(0).map((renderer) => renderer.close()));
    expect(await eventually(() => chromiumChildPids().length === 0)).toBe(true);
  });

  it(
    "recycles a browser after N renders in the background, failing no render",
    async () => {
      const renderer = open({ browsers: 1, recycleAfter: 2 });
      const render = (n: number) => renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n }, title: "r" });
      await render(1);
      const [first] = chromiumChildPids();
      // After the 2nd render a replacement starts; a later render swaps it in.
      let n = 2;
      while (n < 30 && chromiumChildPids().includes(first as number)) {
        expect((await render(n++)).pageCount).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await eventually(() => !chromiumChildPids().includes(first as number))).toBe(true);
      expect(chromiumChildPids()).toHaveLength(1);
      expect(renderer.stats()).toMatchObject({ browsers: 1, busy: 0, queued: 0, renders: n - 1 });
    },
    SLOW,
  );

  it(
    "serves concurrent renders with one page per browser",
    async () => {
      const renderer = open({ browsers: 2 });
      await renderer.warmUp();
      expect(chromiumChildPids()).toHaveLength(2);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, n) => renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n }, title: `${n}` })),
      );
      expect(results.map((r) => r.pageCount)).toEqual([1, 1, 1, 1, 1, 1]);
      expect(renderer.stats()).toMatchObject({ browsers: 2, busy: 0, queued: 0, renders: 6 });
    },
    SLOW,
  );

  it(
    "times out a render that waits too long for a free browser",
    async () => {
      const renderer = open({ browsers: 1 });
      const rows = Array.from({ length: 8_000 }, (_, i) => `<tr><td>行${i}</td></tr>`).join("");
      const busy = renderer.renderPdf({ bundle: makeBundle("<table>{{ rows | raw }}</table>"), bundleKey: "big@1", params: { rows }, title: "b" });
      const queued = renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: {}, title: "q", timeoutMs: 50 });
      await expect(queued).rejects.toMatchObject({ name: "RenderError", code: "RENDER_TIMEOUT" });
      expect((await busy).pageCount).toBeGreaterThan(100);
    },
    SLOW,
  );

  it(
    "fails fast once closed",
    async () => {
      const renderer = open({ browsers: 1 });
      await renderer.close();
      await expect(renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: {}, title: "c" })).rejects.toMatchObject({
        code: "RENDER_FAILED",
      });
    },
    SLOW,
  );
});
