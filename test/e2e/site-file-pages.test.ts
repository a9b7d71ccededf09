import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { launchSiteBrowser, logIn, screenshotFolder, shoot } from "../helpers/site-browser.ts";
import { invoice, siteOrigin } from "../helpers/site-fixtures.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

/**
 * The file view and a version's sample in a real browser (headless Chromium has no PDF viewer,
 * as phones often have none): the pages are images the site drew, and they load.
 */
let stack: SharedStack;
/** The ADMIN of this file's own workspace. */
let admin: { email: string; password: string };
let browser: Browser;
let shots: string;
let filePath: string;
let pageCount: number;
let designId: string;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedStack(), launchSiteBrowser()]);
  shots = screenshotFolder("file-pages");
  const ws = await createSeededLike(stack, "File pages");
  admin = await makeUser({ [ws.id]: "admin" });
  const design = ws.designs.find((d) => d.label.includes("請求書"))!;
  designId = design.id;
  const file = await invoice(stack, ws, "複数ページの請求書", 120);
  filePath = file.path;
  pageCount = file.pageCount;
  await settled(stack);
});

afterAll(async () => {
  await browser?.close();
  await stack?.release();
});

/** Every `<img>` of the page has loaded with pixels (none broken, none still loading) and is decoded. */
async function imagesLoaded(page: Page): Promise<void> {
  await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0), {
    timeout: 60_000,
  });
  await page.evaluate(() => Promise.all(Array.from(document.images).map((i) => i.decode())));
}

/** The page images as the browser has them: address, natural width, alt, and whether any pixel is not white. */
const pageImages = (page: Page) =>
  page.$$eval("ol.pages img", (imgs) =>
    imgs.map((i) => {
      const canvas = document.createElement("canvas");
      canvas.width = i.naturalWidth;
      canvas.height = i.naturalHeight;
      const context = canvas.getContext("2d")!;
      context.drawImage(i, 0, 0);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      let inked = false;
      for (let p = 0; p < pixels.length && !inked; p += 4) inked = pixels[p]! < 128;
      return { src: i.getAttribute("src"), naturalWidth: i.naturalWidth, alt: i.alt, inked };
    }),
  );

describe("page images in a browser without a PDF viewer", () => {
  it("the file view shows page images with no PDF viewer, and more pages by its link", async () => {
    expect(pageCount).toBeGreaterThan(3);
    const page = await browser.newPage();
    await logIn(page, siteOrigin(stack), admin, filePath);
    expect(new URL(page.url()).pathname).toBe(filePath);
    await imagesLoaded(page);
    const first = await pageImages(page);
    expect(first.map((i) => i.src)).toEqual([1, 2, 3].map((n) => `${filePath}/pages/${n}.png`));
    for (const image of first) expect(image).toMatchObject({ naturalWidth: 1000, inked: true });
    expect(first[0]!.alt).toBe(`Page 1 of ${pageCount}`);
    // Nothing depends on a PDF viewer: no frame, embed or object on the page.
    expect(await page.$$eval("iframe, embed, object", (e) => e.length)).toBe(0);
    expect(await page.$("#download")).not.toBeNull();
    await shoot(page, shots, "01-file-view-pages");
    await Promise.all([page.waitForNavigation(), page.click("#more-pages")]);
    expect(new URL(page.url()).search).toBe(`?pages=${Math.min(6, pageCount)}`);
    // The link lands on the first new page; pages further down load as they scroll into view.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await imagesLoaded(page);
    const more = await pageImages(page);
    expect(more).toHaveLength(Math.min(6, pageCount));
    for (const image of more) expect(image).toMatchObject({ naturalWidth: 1000, inked: true });
    await shoot(page, shots, "02-file-view-more-pages");
    await page.close();
  });

  it("a version's sample opens from the history as page images", async () => {
    const page = await browser.newPage();
    await logIn(page, siteOrigin(stack), admin, `/designs/${designId}/versions`);
    // The history's thumbnails settle first (drawn, or broken: this file's designs were published
    // without one): a click aimed while they still load and move the rows could miss.
    await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete), { timeout: 60_000 });
    // The sample is rendered on this first visit and its page images drawn as they load: a busy
    // machine may take long, and a wait that runs out says what the stack was doing.
    const opened = Promise.all([
      page.waitForNavigation({ waitUntil: "domcontentloaded", timeout: 90_000 }),
      page.click('tr[data-version="1"] a.sample-link'),
    ]);
    await opened.catch(async (err: Error) => {
      const renderer = await (await fetch(`${stack.baseUrl.replace(/\/v1$/, "")}/__local/renderer`)).text();
      throw new Error(
        `${err.message}\nat ${page.url()}\nrenderer: ${renderer}\n--- stack output (tail) ---\n${stack.output().slice(-4000)}`,
      );
    });
    expect(new URL(page.url()).pathname).toBe(`/designs/${designId}/versions/1/sample`);
    await imagesLoaded(page);
    const images = await pageImages(page);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toMatchObject({ naturalWidth: 1000, inked: true });
    expect(await page.$$eval("iframe, embed, object", (e) => e.length)).toBe(0);
    await shoot(page, shots, "03-version-sample");
    await page.close();
  }, 180_000);
});
