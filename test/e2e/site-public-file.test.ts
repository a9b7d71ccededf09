import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogue } from "#shared/errors/catalogue.ts";
import { api, type RunningStack, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { allowDownloads, launchSiteBrowser, screenshotFolder, shoot } from "../helpers/site-browser.ts";
import { type GeneratedFile, generateFile, siteOrigin } from "../helpers/site-fixtures.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

let stack: SharedStack;
/** Workspaces of this file's own, shaped like local.json's seeded two. */
let seeded: RunningStack["localJson"]["workspaces"];
let browser: Browser;
let shots: string;
let file: GeneratedFile;

/** The share URL as the API handed it out, on this run's port. */
const visit = (path: string) => `${siteOrigin(stack)}${path}`;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedStack(), launchSiteBrowser()]);
  seeded = [await createSeededLike(stack, "Public file A"), await createSeededLike(stack, "Public file B", "free")];
  shots = screenshotFolder("public-file");
  file = await generateFile(stack, seeded[0]!, {
    fileName: "見積書 2026",
    shareType: "03",
    passcodeEnabled: true,
    passthrough: { customer: "ACME", order: 42 },
  });
  await settled(stack);
});

afterAll(async () => {
  await browser?.close();
  await stack?.release();
});

describe("a public file with a passcode, in a browser", () => {
  it("refuses a wrong passcode, shows the preview for the right one and downloads the API's bytes", async () => {
    const page = await browser.newPage();
    const first = await page.goto(visit(file.path));
    expect(first?.status()).toBe(200);
    await shoot(page, shots, "01-passcode-form");
    // Keyboard only: the field has focus and a label, Enter submits.
    await page.type("#passcode", "wrong-code");
    const [wrong] = await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
    expect(wrong?.status()).toBe(403);
    expect(await page.$eval("#passcode-problem", (e) => e.textContent)).toMatch(/not correct/);
    await shoot(page, shots, "02-passcode-wrong");
    await page.type("#passcode", file.passcode!);
    const [right] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    expect(right?.status()).toBe(200);
    expect(await page.$eval("h1", (e) => e.textContent)).toBe("見積書 2026");
    // The pages as images the site drew, in a browser without a PDF viewer (headless): no frame needed.
    await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0));
    expect(await page.$$eval("ol.pages img", (imgs) => imgs.length)).toBeGreaterThan(0);
    expect(await page.$("iframe")).toBeNull();
    expect(await page.content()).toContain("ACME");
    await shoot(page, shots, "03-file-view");
    const downloads = await allowDownloads(page);
    await page.click("#download");
    const bytes = await downloads.next();
    const fromApi = await api(stack, seeded[0]!.appKey)(`/file/download/${file.requestId}/${file.fileId}`);
    expect(bytes.equals(Buffer.from(await fromApi.arrayBuffer()))).toBe(true);
    const cookies = await browser.cookies();
    expect(cookies.find((c) => c.name.startsWith("platen_pc_"))).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
      path: file.path,
    });
    await page.close();
  });

  it("refuses the 6th wrong attempt with a clear message", async () => {
    const other = await generateFile(stack, seeded[1]!, {
      fileName: "limited",
      shareType: "03",
      passcodeEnabled: true,
    });
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.goto(visit(other.path));
    let status = 0;
    for (let i = 1; i <= 6; i++) {
      await page.type("#passcode", `wrong-${i}`);
      const [res] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
      status = res?.status() ?? 0;
      if (i < 6) expect(status).toBe(403);
    }
    expect(status).toBe(429);
    expect(await page.$eval("#passcode-problem", (e) => e.textContent)).toMatch(/Too many attempts/);
    await shoot(page, shots, "04-passcode-limited");
    await context.close();
  });

  it("shows the same 404 page for an unknown file", async () => {
    const page = await browser.newPage();
    const res = await page.goto(visit(`/file/${file.requestId}/${"0".repeat(16)}`));
    expect(res?.status()).toBe(404);
    await shoot(page, shots, "05-not-found");
    await page.close();
  });

  it("lands on every docsUrl anchor in both languages", async () => {
    const page = await browser.newPage();
    for (const lang of ["en", "ja"] as const) {
      await page.goto(visit(`${lang === "ja" ? "/ja" : ""}/docs/errors`));
      expect(await page.$eval("html", (e) => e.lang)).toBe(lang);
      await shoot(page, shots, `06-docs-${lang}`);
      for (const code of Object.keys(catalogue)) {
        const anchor = code.toLowerCase();
        await page.goto(visit(`${lang === "ja" ? "/ja" : ""}/docs/errors#${anchor}`));
        // The fragment selects an element with that id (`:target`), as the browser scrolls to it.
        expect(await page.evaluate(() => document.querySelector(":target")?.id), `${lang} #${anchor}`).toBe(anchor);
      }
    }
    await page.close();
  });
});
