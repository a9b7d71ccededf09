import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRenderer, RenderError, type Renderer } from "#shared/render/renderer.ts";
import { chromiumChildPids, eventually, extractPageTexts, makeBundle } from "./render-fixtures.ts";

const SLOW = 60_000;

/** Every way a template can make the browser fetch something, aimed at `origin`. */
function exfiltrationTemplate(origin: string): string {
  return `
    <base href="${origin}/base/"><img src="relative-after-base.png">
    <link rel="stylesheet" href="${origin}/link.css">
    <link rel="preload" as="image" href="${origin}/preload.png">
    <link rel="prefetch" href="${origin}/prefetch">
    <meta http-equiv="refresh" content="0;url=${origin}/refresh">
    <style>@import url("${origin}/import.css");
      @font-face { font-family: Leak; src: url("${origin}/font.woff2"); }
      .bg { background: url("${origin}/bg.png"); font-family: Leak; width: 10mm; height: 10mm; }</style>
    <img src="${origin}/img.png"><img srcset="${origin}/srcset.png 2x"><img src="http://localhost:${new URL(origin).port}/localhost">
    <img src="http://169.254.169.254/latest/meta-data/"><img src="file:///etc/passwd">
    <iframe src="file:///etc/passwd"></iframe><iframe src="${origin}/iframe"></iframe>
    <iframe srcdoc="<img src='${origin}/srcdoc.png'>"></iframe>
    <object data="${origin}/object"></object><embed src="${origin}/embed">
    <video poster="${origin}/poster.png" src="${origin}/video.mp4"></video><audio src="${origin}/audio.mp3"></audio>
    <svg><image href="${origin}/svg.png" width="10" height="10"/></svg>
    <div class="bg" style="background-image: url('${origin}/inline.png')">bg</div>
    <a href="${origin}/link" rel="prerender">link</a><p>本文は表示される</p>`;
}

describe("renderer safety (real Chromium)", () => {
  let renderer: Renderer;
  let server: Server;
  const hits: string[] = [];

  beforeAll(async () => {
    renderer = createRenderer({ browsers: 1, timeoutMs: 20_000 });
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.end("leaked");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await renderer.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it(
    "lets nothing out: no request reaches a loopback server, no local file is read",
    async () => {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const bundle = makeBundle(exfiltrationTemplate(origin), {
        css: `body { background: url(${origin}/design.css) }`,
      });
      const { pdf } = await renderer.renderPdf({ bundle, bundleKey: "ssrf@1", params: {}, title: "ssrf" });
      // Give any late request (iframe, font, prefetch) the chance to arrive before judging.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hits).toEqual([]);
      const text = (await extractPageTexts(pdf)).join("\n");
      expect(text).toContain("本文は表示される");
      const passwdLine = readFileSync("/etc/passwd", "utf8").split("\n")[0] ?? "root:x:0:0";
      expect(text).not.toContain(passwdLine.slice(0, 10));
      expect(text).not.toContain("leaked");
    },
    SLOW,
  );

  it(
    "a meta refresh to file:///etc/passwd does not navigate: the PDF is the template's page, never the file",
    async () => {
      const bundle = makeBundle(
        '<meta http-equiv=refresh content="0;url=file:///etc/passwd"><p>テンプレートの本文</p>',
      );
      const { pdf } = await renderer.renderPdf({ bundle, bundleKey: "refresh@1", params: {}, title: "refresh" });
      const text = (await extractPageTexts(pdf)).join("\n");
      expect(text).toContain("テンプレートの本文");
      const passwdLine = readFileSync("/etc/passwd", "utf8").split("\n")[0] ?? "root:x:0:0";
      expect(text).not.toContain(passwdLine.slice(0, 10));
      expect(text).not.toContain("/bin/");
    },
    SLOW,
  );

  it(
    "stops a template that runs too long (Liquid's render limit) with RENDER_TIMEOUT",
    async () => {
      const bundle = makeBundle("{% for i in (1..100000) %}{% for j in (1..1000) %}{{ j }}{% endfor %}{% endfor %}");
      const error = await renderer
        .renderPdf({ bundle, bundleKey: "loop@1", params: {}, title: "loop", timeoutMs: 300 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RenderError);
      expect(error).toMatchObject({ name: "RenderError", code: "RENDER_TIMEOUT" });
    },
    SLOW,
  );

  it(
    "kills the browser of a render that overruns its time-out and leaves nothing running",
    async () => {
      await renderer.renderPdf({ bundle: makeBundle("<p>warm</p>"), bundleKey: "warm@1", params: {}, title: "w" });
      const before = chromiumChildPids();
      expect(before).toHaveLength(1);
      // Pre-built markup: Liquid is instant, Chromium's layout and printing take the time.
      const rows = Array.from({ length: 30_000 }, (_, i) => `<tr><td>行${i}</td><td>${i}</td></tr>`).join("");
      const bundle = makeBundle("<table>{{ rows | raw }}</table>");
      const error = await renderer
        .renderPdf({ bundle, bundleKey: "huge@1", params: { rows }, title: "huge", timeoutMs: 400 })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "RenderError", code: "RENDER_TIMEOUT" });
      // The browser doing the work is gone (killed, not left rendering)…
      expect(await eventually(() => !chromiumChildPids().includes(before[0] as number))).toBe(true);
      // …and the pool serves the next render with a fresh one, still one browser in all.
      const { pageCount } = await renderer.renderPdf({
        bundle: makeBundle("<p>次</p>"),
        bundleKey: "n@1",
        params: {},
        title: "n",
      });
      expect(pageCount).toBe(1);
      expect(chromiumChildPids()).toHaveLength(1);
    },
    SLOW,
  );

  it(
    "recovers transparently when the browser process dies",
    async () => {
      await renderer.renderPdf({ bundle: makeBundle("<p>warm</p>"), bundleKey: "warm@1", params: {}, title: "w" });
      const [pid] = chromiumChildPids();
      process.kill(pid as number, "SIGKILL");
      const { pageCount } = await renderer.renderPdf({
        bundle: makeBundle("<p>復旧</p>"),
        bundleKey: "r@1",
        params: {},
        title: "r",
      });
      expect(pageCount).toBe(1);
      expect(chromiumChildPids()).not.toContain(pid);
      expect(renderer.stats().browsers).toBe(1);
    },
    SLOW,
  );
});
