import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterEach, describe, expect, it } from "vitest";
import { RENDER_CHANNEL } from "#shared/render/render-events.ts";
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
    "recycles a browser after N renders, failing no render: the old one closes before its replacement starts",
    async () => {
      const renderer = open({ browsers: 1, recycleAfter: 3 });
      const render = (n: number) => renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n }, title: "r" });
      const counts: number[] = [];
      const watch = setInterval(() => counts.push(chromiumChildPids().length), 5);
      try {
        await render(1);
        const [first] = chromiumChildPids();
        for (const n of [2, 3]) expect((await render(n)).pageCount).toBe(1);
        // The third release retired the browser: it closes, then its replacement starts.
        expect(await eventually(() => !chromiumChildPids().includes(first as number))).toBe(true);
        expect((await render(4)).pageCount).toBe(1);
        expect(chromiumChildPids()).toHaveLength(1);
      } finally {
        clearInterval(watch);
      }
      expect(Math.max(...counts)).toBe(1);
      expect(renderer.stats()).toMatchObject({ browsers: 1, busy: 0, queued: 0, renders: 4 });
    },
    SLOW,
  );

  it(
    "collects a browser's garbage every N renders, after handing the result back: the replaced documents' DOM goes",
    async () => {
      const renderer = open({ browsers: 1, recycleAfter: 500, gcEvery: 4 });
      const collections: { ms: number; nodesBefore: number; nodesAfter: number }[] = [];
      const listen = (message: unknown) => {
        const event = message as { event: string; ms: number; nodesBefore: number; nodesAfter: number };
        if (event.event === "garbage-collected") collections.push(event);
      };
      subscribe(RENDER_CHANNEL, listen);
      try {
        const rows = makeBundle("{% for i in (1..300) %}<p>{{ i }} {{ n }}</p>{% endfor %}");
        for (let n = 1; n <= 9; n++)
          expect(
            (await renderer.renderPdf({ bundle: rows, bundleKey: "rows@1", params: { n }, title: "r" })).pageCount,
          ).toBeGreaterThan(0);
        expect(await eventually(() => collections.length === 2)).toBe(true);
      } finally {
        unsubscribe(RENDER_CHANNEL, listen);
      }
      for (const c of collections) {
        expect(c.nodesBefore).toBeGreaterThan(1_000); // four documents of 300 paragraphs each, kept
        expect(c.nodesAfter).toBeLessThan(c.nodesBefore / 2); // only the current one is left
        expect(c.ms).toBeGreaterThan(0); // how long it takes is measured in the bench (test/bench/features.ts)
      }
      expect(renderer.stats()).toMatchObject({ browsers: 1, busy: 0, renders: 9 });
    },
    SLOW,
  );

  it(
    "a render waiting for the only browser while it is retired does not wait for its graceful close",
    async () => {
      const renderer = open({ browsers: 1, recycleAfter: 2 });
      const render = (n: number) => renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n }, title: "r" });
      await render(0);
      const [first] = chromiumChildPids();
      // Queued behind each other: the release after the 2nd render retires the browser with the 3rd waiting.
      const results = await Promise.all([1, 2, 3, 4].map(render));
      expect(results.map((r) => r.pageCount)).toEqual([1, 1, 1, 1]);
      expect(chromiumChildPids()).not.toContain(first);
      expect(await eventually(() => chromiumChildPids().length === 1)).toBe(true);
      expect(renderer.stats()).toMatchObject({ browsers: 1, busy: 0, queued: 0, renders: 5 });
    },
    SLOW,
  );

  it(
    "with two browsers the other one serves while one is recycled: never more browsers than the pool size",
    async () => {
      const renderer = open({ browsers: 2, recycleAfter: 3 });
      await renderer.warmUp();
      const before = chromiumChildPids();
      const most: number[] = [];
      const watch = setInterval(() => most.push(chromiumChildPids().length), 5);
      try {
        for (let n = 0; n < 12; n++)
          expect(
            (await renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n }, title: "r" })).pageCount,
          ).toBe(1);
      } finally {
        clearInterval(watch);
      }
      expect(Math.max(...most)).toBeLessThanOrEqual(2);
      expect(await eventually(() => chromiumChildPids().length === 2)).toBe(true);
      expect(chromiumChildPids().filter((pid) => before.includes(pid)).length).toBeLessThan(2); // at least one was replaced
    },
    SLOW,
  );

  it(
    "a render that arrives while the init launch is under way waits for that browser instead of launching a second",
    async () => {
      const renderer = open({ browsers: 2 });
      let launched = 0;
      const listen = (message: unknown) => {
        if ((message as { event: string }).event === "browser-launched") launched += 1;
      };
      subscribe(RENDER_CHANNEL, listen);
      try {
        const warming = renderer.warmUp(1);
        const started = chromiumChildPids();
        const pdf = await renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n: 1 }, title: "r" });
        await warming;
        expect(pdf.pageCount).toBe(1);
        expect(launched).toBe(1);
        expect(chromiumChildPids()).toHaveLength(1);
        expect(started.length).toBeLessThanOrEqual(1);
        expect(renderer.stats()).toMatchObject({ browsers: 1, busy: 0, queued: 0, renders: 1 });
      } finally {
        unsubscribe(RENDER_CHANNEL, listen);
      }
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
        Array.from({ length: 6 }, (_, n) =>
          renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: { n }, title: `${n}` }),
        ),
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
      const busy = renderer.renderPdf({
        bundle: makeBundle("<table>{{ rows | raw }}</table>"),
        bundleKey: "big@1",
        params: { rows },
        title: "b",
      });
      const queued = renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: {}, title: "q", timeoutMs: 50 });
      await expect(queued).rejects.toMatchObject({ name: "RenderError", code: "BROWSER_BUSY" });
      expect((await busy).pageCount).toBeGreaterThan(100);
    },
    SLOW,
  );

  it(
    "fails fast once closed",
    async () => {
      const renderer = open({ browsers: 1 });
      await renderer.close();
      await expect(
        renderer.renderPdf({ bundle: small, bundleKey: "s@1", params: {}, title: "c" }),
      ).rejects.toMatchObject({
        code: "RENDER_FAILED",
      });
    },
    SLOW,
  );
});
