import { afterEach, describe, expect, it } from "vitest";
import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";
import { spawnChromiumAtInit } from "#shared/render/early-chromium.ts";
import { createRenderer, type Renderer } from "#shared/render/renderer.ts";
import { chromiumChildPids, eventually, makeBundle } from "./render-fixtures.ts";

const SLOW = 60_000;
const small = makeBundle("<p>{{ n }} ページ</p>");

/**
 * The browser spawned while a cold container's modules load (RENDER_LAUNCH_AT_INIT): the
 * renderer's first browser is that process, serves like a launched one, and is killed and
 * replaced like one when a render overruns.
 */
describe("Chromium spawned at init (real Chromium)", () => {
  const renderers: Renderer[] = [];
  afterEach(async () => {
    await Promise.all(renderers.splice(0).map((renderer) => renderer.close()));
    expect(await eventually(() => chromiumChildPids().length === 0)).toBe(true);
  });

  it("does nothing without RENDER_LAUNCH_AT_INIT or without an unpacked binary (CHROMIUM_PATH)", async () => {
    const chromiumPath = await resolveExecutablePath();
    expect(spawnChromiumAtInit({ CHROMIUM_PATH: chromiumPath })).toBe(false);
    expect(spawnChromiumAtInit({ RENDER_LAUNCH_AT_INIT: "1" })).toBe(false);
    expect(chromiumChildPids()).toHaveLength(0);
  });

  it(
    "the renderer's first browser is the spawned process; a render that overruns kills it and the next one launches",
    async () => {
      const env = { RENDER_LAUNCH_AT_INIT: "1", CHROMIUM_PATH: await resolveExecutablePath() };
      expect(spawnChromiumAtInit(env)).toBe(true);
      expect(spawnChromiumAtInit(env)).toBe(false); // one per process
      const [early] = chromiumChildPids();
      expect(early).toBeDefined();
      const renderer = createRenderer({ browsers: 1 });
      renderers.push(renderer);
      const first = await renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n: 1 }, title: "early" });
      expect(first.pageCount).toBe(1);
      expect(first.pdf.subarray(0, 5).toString()).toBe("%PDF-");
      expect(chromiumChildPids()).toEqual([early]); // connected to, not launched beside it

      const rows = Array.from({ length: 20_000 }, (_, i) => `<tr><td>行${i}</td></tr>`).join("");
      const big = makeBundle("<table>{{ rows | raw }}</table>");
      await expect(
        renderer.renderPdf({ bundle: big, bundleKey: "b@1", params: { rows }, title: "t", timeoutMs: 50 }),
      ).rejects.toMatchObject({
        code: "RENDER_TIMEOUT",
      });
      expect(await eventually(() => !chromiumChildPids().includes(early!))).toBe(true);
      expect(
        (await renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n: 2 }, title: "after" })).pageCount,
      ).toBe(1);
      expect(chromiumChildPids()).toHaveLength(1);
    },
    SLOW,
  );
});
