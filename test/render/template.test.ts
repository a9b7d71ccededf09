import { Liquid } from "liquidjs";
import { describe, expect, it } from "vitest";
import { chromiumArgs } from "#shared/render/chromium-launch.ts";
import { buildFontsConf, resolveFontFiles } from "#shared/render/font-config.ts";
import { lengthToPx, pageCss, resolvePageBox } from "#shared/render/page-box.ts";
import { zoneOffsetMinutes } from "#shared/render/filters.ts";
import { findAsset } from "#shared/render/page-guard.ts";
import { DESIGN_ORIGIN, renderHtml } from "#shared/render/template.ts";
import { PREVIEW_SHARE_URL } from "#shared/render/template-file.ts";
import { makeBundle } from "./render-fixtures.ts";

const render = (template: string, params: Record<string, unknown> = {}, css = "") =>
  renderHtml(makeBundle(template, { css }), params, { title: "t" });

describe("renderHtml", () => {
  it("builds a full document: base URL, CSP, base CSS, design CSS, @page from the manifest", async () => {
    const bundle = makeBundle("<p>{{ x }}</p>", {
      css: "p { color: red }",
      page: { size: "A4", orientation: "landscape", margin: { top: "5mm" } },
    });
    const html = await renderHtml(bundle, { x: 1 }, { title: `請求書 <"&>` });
    expect(html.startsWith('<!doctype html><html><head><meta charset="utf-8">')).toBe(true);
    expect(html).toContain(`<base href="${DESIGN_ORIGIN}/">`);
    expect(html).toContain("script-src 'none'");
    expect(html).toContain("<title>請求書 &#60;&#34;&#38;&#62;</title>");
    expect(html).toContain("thead { display: table-header-group; }");
    expect(html).toContain("@page { size: 297mm 210mm; margin: 5mm 10mm 10mm 10mm; }");
    expect(html.indexOf("p { color: red }")).toBeLessThan(html.indexOf("@page"));
    expect(html.endsWith("<body><p>1</p></body></html>")).toBe(true);
  });

  it("gives the template its file as `file`, and previews a placeholder that says so", async () => {
    const template = "{{ file.id }}|{{ file.name }}|{{ file.share.url }}|{{ file.preview }}";
    const file = { id: "F1", name: "請求書-1", share: { url: "https://site.test/file/R1/F1" }, preview: false };
    const generated = await renderHtml(makeBundle(template), {}, { title: "請求書-1", file });
    expect(generated).toContain("<body>F1|請求書-1|https://site.test/file/R1/F1|false</body>");
    const preview = await renderHtml(makeBundle(template), {}, { title: "draft" });
    expect(preview).toContain(`<body>preview|draft|${PREVIEW_SHARE_URL}|true</body>`);
    expect(PREVIEW_SHARE_URL).toMatch(/^https:\/\/[^/]+\.invalid\/preview$/);
  });

  it("lets a params value named file win over the global (designs published before it was reserved)", async () => {
    const html = await renderHtml(makeBundle("{{ file }}"), { file: "mine" }, { title: "t" });
    expect(html).toContain("<body>mine</body>");
  });

  it("escapes output by default; | raw is the explicit opt-out", async () => {
    const html = await render("{{ v }}|{{ v | raw }}", { v: "<script>x()</script>" });
    expect(html).toContain("&lt;script&gt;x()&lt;/script&gt;|<script>x()</script>");
  });

  it("keeps design CSS inside its <style> element", async () => {
    expect(await render("", {}, "a{}</style><script>x()</script>")).toContain("a{}<\\/style><script>");
  });

  it("rejects unknown filters, file-system partials and prototype access", async () => {
    await expect(render("{{ x | nope }}")).rejects.toMatchObject({ name: "RenderError", code: "TEMPLATE_FAILED" });
    await expect(render('{% include "/etc/passwd" %}')).rejects.toMatchObject({ code: "TEMPLATE_FAILED" });
    await expect(render('{% render "constructor" %}')).rejects.toMatchObject({ code: "TEMPLATE_FAILED" });
    await expect(render("{% if %}")).rejects.toMatchObject({ code: "TEMPLATE_FAILED" });
    const html = await render("[{{ o.constructor }}][{{ o.__proto__ }}][{{ o.toString }}][{{ o.hasOwnProperty }}]", {
      o: {},
    });
    expect(html).toContain("<body>[][][][]</body>");
  });

  it("stops runaway templates by memory and by time", async () => {
    await expect(render("{% for i in (1..100000000) %}{% endfor %}")).rejects.toMatchObject({ code: "HTML_TOO_LARGE" });
    const slow = renderHtml(
      makeBundle("{% for i in (1..100000) %}{% for j in (1..1000) %}{{ j }}{% endfor %}{% endfor %}"),
      {},
      { title: "t", renderLimitMs: 50 },
    );
    await expect(slow).rejects.toMatchObject({ code: "RENDER_TIMEOUT" });
  });

  it("caches the parsed template per bundle key (versions are immutable)", async () => {
    const first = await renderHtml(makeBundle("v1"), {}, { title: "t", bundleKey: "design@1" });
    const again = await renderHtml(makeBundle("v2"), {}, { title: "t", bundleKey: "design@1" });
    const other = await renderHtml(makeBundle("v2"), {}, { title: "t", bundleKey: "design@2" });
    expect([first, again, other].map((html) => html.slice(html.indexOf("<body>")))).toEqual([
      "<body>v1</body></html>",
      "<body>v1</body></html>",
      "<body>v2</body></html>",
    ]);
  });
});

describe("page box", () => {
  it("resolves named sizes, orientation and explicit sizes", () => {
    const page = (p: Record<string, unknown>) => makeBundle("", { page: p }).manifest.page;
    expect(resolvePageBox(page({ size: "B5" }))).toMatchObject({ width: "176mm", height: "250mm" });
    expect(resolvePageBox(page({ size: "Letter", orientation: "landscape" }))).toMatchObject({
      width: "279.4mm",
      height: "215.9mm",
    });
    const custom = resolvePageBox(page({ width: "100mm", height: "4in" }));
    expect(pageCss(custom)).toBe("@page { size: 100mm 4in; margin: 10mm 10mm 10mm 10mm; }");
    expect(custom.heightPx).toBe(384);
    expect(lengthToPx("25.4mm")).toBeCloseTo(96);
  });
});

describe("request guard", () => {
  const assets = { "assets/logo.png": { contentType: "image/png", body: Buffer.from("png") } };
  it("serves only the bundle's own assets on the design origin", () => {
    expect(findAsset(`${DESIGN_ORIGIN}/assets/logo.png?v=1`, assets)?.contentType).toBe("image/png");
    expect(findAsset(`${DESIGN_ORIGIN}/assets/%6Cogo.png`, assets)).toBeDefined();
    expect(findAsset("https://evil.example/assets/logo.png", assets)).toBeUndefined();
    expect(findAsset(`${DESIGN_ORIGIN}/constructor`, assets)).toBeUndefined();
    expect(findAsset(`${DESIGN_ORIGIN}/assets/../assets/logo.png`, assets)).toBeDefined(); // URL-normalised
    expect(findAsset("file:///etc/passwd", assets)).toBeUndefined();
  });
});

describe("chromium flags and fonts", () => {
  it("drops @sparticuz/chromium's web-security opt-outs and adds the dead proxy", () => {
    const args = chromiumArgs();
    expect(args).not.toContain("--disable-web-security");
    expect(args).not.toContain("--allow-running-insecure-content");
    expect(args).toContain("--proxy-server=http://127.0.0.1:9");
    expect(args).toContain("--proxy-bypass-list=<-loopback>");
  });

  it("ships TrueType files and aliases every generic family to them", () => {
    expect(resolveFontFiles().every((file) => file.endsWith(".ttf"))).toBe(true);
    const conf = buildFontsConf(["/fonts/a&b"], "/tmp/cache");
    expect(conf).toContain("<dir>/fonts/a&amp;b</dir>");
    for (const generic of ["sans-serif", "serif", "monospace"]) {
      expect(conf).toContain(`<family>${generic}</family><prefer><family>Noto Sans JP</family>`);
    }
  });
});

describe("date filter with a zone name", () => {
  const plain = new Liquid();
  const dates = [
    "2026-03-08T09:59:59Z",
    "2026-03-08T10:00:00Z",
    "2026-11-01T05:30:00Z",
    "2024-02-29T15:00:00Z",
    "1700000000",
    1735689600,
    "2026-06-30",
  ];
  const zones = ["UTC", "Asia/Tokyo", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Etc/GMT+12"];

  it("prints what LiquidJS prints, across zones and DST changes", async () => {
    for (const zone of zones) {
      for (const d of dates) {
        const tpl = `{{ d | date: "%Y-%m-%d %H:%M:%S %z", z }}`;
        const expected = await plain.parseAndRender(tpl, { d, z: zone });
        expect(await render(tpl, { d, z: zone }), `${d} in ${zone}`).toContain(`<body>${expected}</body>`);
      }
    }
  });

  it("keeps the zone's name for %Z and LiquidJS's own error for an unknown zone", async () => {
    expect(await render(`{{ "2026-01-01T00:00:00Z" | date: "%Z", "Asia/Tokyo" }}`)).toContain(
      "<body>Asia/Tokyo</body>",
    );
    await expect(render(`{{ "2026-01-01T00:00:00Z" | date: "%Y", "Mars/Olympus" }}`)).rejects.toMatchObject({
      code: "TEMPLATE_FAILED",
    });
  });

  it("computes offsets with the sign LiquidJS uses", () => {
    expect(zoneOffsetMinutes("Asia/Tokyo", Date.UTC(2026, 0, 1))).toBe(-540);
    expect(zoneOffsetMinutes("America/New_York", Date.UTC(2026, 6, 1))).toBe(240);
    expect(zoneOffsetMinutes("Nowhere/Land", Date.UTC(2026, 0, 1))).toBeUndefined();
    expect(zoneOffsetMinutes("UTC", Number.NaN)).toBeUndefined();
  });
});
