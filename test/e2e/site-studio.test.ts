import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { api } from "../helpers/local-stack.ts";
import { compactPdfText } from "../helpers/pdf-inspect.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { launchSiteBrowser, logIn } from "../helpers/site-browser.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

/**
 * The design studio in a real browser against `npm start`: the editor's script (CodeMirror,
 * the live preview as page images, problems with their line, autosave, publish), the history's
 * diff and the gallery's copy. Screenshots go to test/artifacts/studio (ignored by git).
 */
let stack: SharedStack;
/** This file's own workspace, shaped like a seeded one; its ADMIN is the visitor. */
let ws: Awaited<ReturnType<typeof createSeededLike>>;
let browser: Browser;
let origin: string;
let page: Page;
let designId: string;
const shots = resolve(import.meta.dirname, "../artifacts/studio");

const shoot = (p: Page, name: string) => p.screenshot({ path: join(shots, `${name}.png`) });

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  [stack, browser] = await Promise.all([sharedStack(), launchSiteBrowser()]);
  origin = new URL(stack.localJson.siteUrl).origin;
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 860 });
  ws = await createSeededLike(stack, "Studio");
  const admin = await makeUser({ [ws.id]: "admin" });
  await logIn(page, origin, admin, "/designs");
});

afterAll(async () => {
  await browser?.close();
  await stack?.release();
});

/** The number of previews the editor has shown so far. */
const rendered = (p: Page) => p.$eval("#preview-pages", (e) => Number((e as HTMLElement).dataset.rendered ?? "0"));

async function waitForPreview(p: Page, after: number): Promise<string> {
  await p.waitForFunction(
    (n) => Number((document.getElementById("preview-pages") as HTMLElement).dataset.rendered ?? "0") > n,
    { timeout: 30_000 },
    after,
  );
  return p.$eval("#preview-pages img", (img) => (img as HTMLImageElement).src);
}

/** Replaces the whole text of one editor tab by typing, as a user would. */
async function typeInto(p: Page, file: string, text: string, { replace = false } = {}) {
  await p.click(`#tab-${file}`);
  await p.click(`.cm-content[data-file="${file}"]`);
  await p.keyboard.down("Control");
  await p.keyboard.press(replace ? "KeyA" : "End");
  await p.keyboard.up("Control");
  await p.keyboard.type(text);
}

describe("the design studio in a browser", () => {
  it("creates a blank design from the designs page and opens the editor with a first preview", async () => {
    await page.goto(`${origin}/designs`);
    await shoot(page, "designs");
    await page.$eval("#create-label", (e) => {
      (e as HTMLInputElement).value = "";
    });
    await page.type("#create-label", "Studio test");
    await Promise.all([page.waitForNavigation(), page.click("#create-blank button[type=submit]")]);
    designId = new URL(page.url()).pathname.split("/")[2]!;
    expect(designId).toMatch(/^\w{16}$/);
    const first = await waitForPreview(page, 0);
    expect(first).toMatch(/^data:image\/png;base64,/);
    // CodeMirror replaced the template's textarea, under a CSP without inline script.
    expect(await page.$('.cm-content[data-file="template"]')).not.toBeNull();
  });

  it("re-renders the preview after typing in the template, the previous pages staying until then", async () => {
    const before = await page.$eval("#preview-pages img", (img) => (img as HTMLImageElement).src);
    const count = await rendered(page);
    await typeInto(page, "template", "<p>CHANGED IN THE STUDIO</p>");
    // Straight after typing the old pages are still shown.
    expect(await page.$eval("#preview-pages img", (img) => (img as HTMLImageElement).src)).toBe(before);
    const after = await waitForPreview(page, count);
    expect(after).not.toBe(before);
    await shoot(page, "editor");
  });

  it("reports a Liquid syntax error with its line, and clicking it puts the cursor there", async () => {
    await typeInto(page, "template", "\n{% if open %}");
    const lines = await page.$eval('.cm-content[data-file="template"]', (e) => e.querySelectorAll(".cm-line").length);
    const problem = await page.waitForSelector('#problem-list button[data-file="template"]', { timeout: 20_000 });
    const text = await problem!.evaluate((e) => e.textContent ?? "");
    expect(text).toContain(`template.liquid, line ${lines}`);
    await problem!.click();
    const cursorLine = await page.$eval(".cm-activeLine", (e) => e.textContent);
    expect(cursorLine).toBe("{% if open %}");
    // Take the broken tag out again (from the end): the problem list empties with the next preview.
    await page.keyboard.down("Control");
    await page.keyboard.press("End");
    await page.keyboard.up("Control");
    for (let i = 0; i < "\n{% if open %}".length; i++) await page.keyboard.press("Backspace");
    await page.waitForFunction(() => !document.querySelector('#problem-list button[data-file="template"]'), {
      timeout: 20_000,
    });
  });

  it("autosaves the draft, and reopening the editor restores it", async () => {
    await page.waitForFunction(() => /Draft saved/.test(document.getElementById("save-status")?.textContent ?? ""), {
      timeout: 20_000,
    });
    await page.goto(`${origin}/designs/${designId}`);
    const template = await page.$eval('.cm-content[data-file="template"]', (e) => e.textContent);
    expect(template).toContain("CHANGED IN THE STUDIO");
  });

  it("shows the e-invoice mapping in a tab of its own for an e-invoice design, edits it and keeps it in the draft", async () => {
    // A design without `einvoice` has no such tab.
    expect(await page.$("#tab-einvoiceMapping")).toBeNull();
    const invoiceEu = ws.designs.find((d) => d.label.startsWith("Invoice with Factur-X"))!;
    const editor = await browser.newPage();
    try {
      await editor.setCookie(...(await page.cookies()));
      await editor.goto(`${origin}/designs/${invoiceEu.id}`);
      await waitForPreview(editor, 0);
      const mapping = await editor.$eval('.cm-content[data-file="einvoiceMapping"]', (e) => e.textContent);
      expect(mapping).toContain("invoiceNumber | json");
      // A rule the invoice breaks is a problem with its rule id: the invoice number (line 2) left out of the mapping.
      await editor.click("#tab-einvoiceMapping");
      await editor.click('.cm-content[data-file="einvoiceMapping"]');
      await editor.keyboard.down("Control");
      await editor.keyboard.press("Home");
      await editor.keyboard.up("Control");
      await editor.keyboard.press("ArrowDown");
      await editor.keyboard.press("Home");
      await editor.keyboard.down("Shift");
      await editor.keyboard.press("End");
      await editor.keyboard.up("Shift");
      await editor.keyboard.press("Delete");
      await editor.waitForFunction(() => /BR-02/.test(document.getElementById("problem-list")?.textContent ?? ""), {
        timeout: 30_000,
      });
      await editor.waitForFunction(
        () => /Draft saved/.test(document.getElementById("save-status")?.textContent ?? ""),
        {
          timeout: 20_000,
        },
      );
      await editor.goto(`${origin}/designs/${invoiceEu.id}`);
      const saved = await editor.$eval('.cm-content[data-file="einvoiceMapping"]', (e) => e.textContent);
      expect(saved).not.toContain('"number": {{ invoiceNumber');
    } finally {
      await editor.close();
    }
  });

  it("publishes with a note, and a sync generation of the new version uses the new template", async () => {
    await page.type("#publish-note", "first change");
    await page.click("#publish");
    await page.waitForFunction(
      () => /Version 2 is published/.test(document.getElementById("publish-status")?.textContent ?? ""),
      {
        timeout: 30_000,
      },
    );
    const res = await api(stack, ws.appKey)("/file/sync/single", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        designId,
        version: 2,
        content: { fileName: "studio", params: { title: "T", body: "B" } },
      }),
    });
    expect(res.status).toBe(200);
    expect(await compactPdfText(new Uint8Array(await res.arrayBuffer()))).toContain("CHANGEDINTHESTUDIO");
  });

  it("detects that a second tab published first instead of overwriting its version", async () => {
    const second = await browser.newPage();
    await second.goto(`${origin}/designs/${designId}`);
    await waitForPreview(second, 0);
    await typeInto(second, "template", "<p>from the second tab</p>");
    await second.type("#publish-note", "second tab");
    await second.click("#publish");
    await second.waitForFunction(
      () => /Version 3 is published/.test(document.getElementById("publish-status")?.textContent ?? ""),
      { timeout: 30_000 },
    );
    await second.close();
    // The first tab still expects version 2 to be the latest.
    await page.type("#publish-note", "stale");
    await page.click("#publish");
    await page.waitForFunction(
      () => /Someone else published version 3/.test(document.getElementById("publish-status")?.textContent ?? ""),
      {
        timeout: 30_000,
      },
    );
    // The message links to what the second tab changed since this tab's version.
    const diff = await page.$eval("#conflict-diff", (a) => (a as HTMLAnchorElement).getAttribute("href"));
    expect(diff).toBe(`/designs/${designId}/versions?from=2&to=3#diff`);
  });

  it("publishes with the keyboard alone", async () => {
    await page.goto(`${origin}/designs/${designId}`);
    await waitForPreview(page, 0);
    let focused = "";
    for (let i = 0; i < 80 && focused !== "publish-note"; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.id ?? "");
    }
    expect(focused).toBe("publish-note");
    await page.keyboard.type("by keyboard");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("publish");
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      () => /Version 4 is published/.test(document.getElementById("publish-status")?.textContent ?? ""),
      {
        timeout: 30_000,
      },
    );
  });

  it("the diff between versions 1 and 2 shows the changed line", async () => {
    await page.goto(`${origin}/designs/${designId}`);
    await Promise.all([page.waitForNavigation(), page.click("#history-link")]);
    expect(await page.$$eval("#versions tbody tr", (rows) => rows.length)).toBe(4);
    // The compare form is plain HTML: fill it and submit it as a user would.
    await page.$eval("#compare-from", (e) => {
      (e as HTMLInputElement).value = "";
    });
    await page.type("#compare-from", "1");
    await page.$eval("#compare-to", (e) => {
      (e as HTMLInputElement).value = "";
    });
    await page.type("#compare-to", "2");
    await Promise.all([page.waitForNavigation(), page.click("#compare-form button[type=submit]")]);
    const added = await page.$$eval('pre[data-file="template.liquid"] .add', (lines) =>
      lines.map((l) => l.textContent ?? ""),
    );
    expect(added.some((l) => l.startsWith("+") && l.includes("CHANGED IN THE STUDIO"))).toBe(true);
    // Readable without colour: every marked line starts with its sign.
    const removed = await page.$$eval('pre[data-file="template.liquid"] .del', (lines) =>
      lines.map((l) => l.textContent ?? ""),
    );
    expect(removed.every((l) => l.startsWith("-"))).toBe(true);
    await shoot(page, "history");
  });

  it("copies a gallery template into a workspace and generates from it", async () => {
    await page.goto(`${origin}/templates?q=certificate`);
    const card = await page.waitForSelector("li[data-template]");
    // The thumbnail loaded under the site's CSP (same origin).
    await page.waitForFunction(() => {
      const img = document.querySelector("li[data-template] img") as HTMLImageElement | null;
      return Boolean(img?.complete && img.naturalWidth > 0);
    });
    await shoot(page, "gallery");
    const button = await card!.$("form.use-template button[type=submit]");
    await Promise.all([page.waitForNavigation(), button!.click()]);
    const copied = new URL(page.url()).pathname.split("/")[2]!;
    expect(copied).toMatch(/^\w{16}$/);
    expect(copied).not.toBe(designId);
    const res = await api(stack, ws.appKey)("/file/sync/single", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        designId: copied,
        version: 1,
        content: { fileName: "from-gallery", params: { recipientName: "Gallery Copy", courseName: "Templates" } },
      }),
    });
    expect(res.status).toBe(200);
    expect(await compactPdfText(new Uint8Array(await res.arrayBuffer()))).toContain("GalleryCopy");
  });
});
