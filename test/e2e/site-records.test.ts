import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { counterpartySearchForm, dynamoRecordStore, keepRecord, s3RecordPdfs } from "#shared/records/index.ts";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { allowDownloads, launchSiteBrowser, logIn, screenshotFolder, shoot } from "../helpers/site-browser.ts";
import { writeReceiptRecordDesign } from "../helpers/record-designs.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, publishFolder, type Tenant } from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";

let stack: SharedStack;
let browser: Browser;
let origin: string;
let shots: string;
let work: string;
let a: Tenant;
let b: Tenant;
let reader: Awaited<ReturnType<typeof makeUser>>;
let outsider: Awaited<ReturnType<typeof makeUser>>;
/** The PDF of the receipt generated through the API, as it was delivered. */
let delivered: Buffer;

/** Invoices of November 2026 kept as generation keeps them: 10,000 to 60,000 yen, two counterparties. */
async function keepInvoices(workspaceId: string): Promise<void> {
  const deps = { store: dynamoRecordStore(), pdfs: s3RecordPdfs(), clock: systemClock };
  for (let n = 1; n <= 6; n++) {
    const counterparty = n % 2 ? "株式会社　サンプル" : "山田商店";
    const file = { workspaceId, designId: "d", version: 1, requestId: "r", fileId: `site-${workspaceId}-${n}` };
    const fields = {
      type: "invoice" as const,
      date: `2026-11-${String(n * 4).padStart(2, "0")}`,
      amount: n * 10_000,
      currency: "JPY",
      counterparty,
      counterpartySearch: counterpartySearchForm(counterparty),
      number: `INV-${n}`,
    };
    await keepRecord(deps, { ...file, fileName: `請求書-${n}` }, fields, Buffer.from(`%PDF-1.7 invoice ${n}`));
  }
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedStack(), launchSiteBrowser()]);
  origin = new URL(stack.localJson.siteUrl).origin;
  shots = screenshotFolder("records");
  work = mkdtempSync(join(tmpdir(), "platen-site-records-"));
  [a, b] = await Promise.all([createTenant(stack, "records site A"), createTenant(stack, "records site B")]);
  const design = await publishFolder(stack, a.workspaceId, writeReceiptRecordDesign(work));
  const res = await syncCaller(stack, a.appKey)("single", {
    designId: design.id,
    version: design.version,
    content: { fileName: "領収書-5500", params: { 日付: "2026-10-05", 金額: 5500, 宛名: "田中商店" } },
  });
  expect(res.status).toBe(200);
  delivered = Buffer.from(await res.arrayBuffer());
  useStackEmulators(stack.dataDir);
  await keepInvoices(a.workspaceId);
  [reader, outsider] = await Promise.all([
    makeUser({ [a.workspaceId]: "read" }),
    makeUser({ [b.workspaceId]: "admin" }),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.release();
  if (work) rmSync(work, { recursive: true, force: true });
});

const rows = (page: Page) =>
  page.$$eval("#records tbody tr", (trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent?.trim())),
  );

describe("the records page in a browser", () => {
  let page: Page;

  it("searches by a date range and an amount range with a form that needs no script, and shows the retention", async () => {
    const context = await browser.createBrowserContext();
    page = await context.newPage();
    await page.setJavaScriptEnabled(false);
    await logIn(page, origin, reader, "/records");
    expect(new URL(page.url()).pathname).toBe("/records");
    expect(await page.$eval("#records-retention", (e) => e.textContent)).toContain("7 years");
    // Linked from the navigation; the language switch goes to the page's Japanese address.
    expect(await page.$eval("nav a[href='/records']", (e) => e.textContent)).toBe("Kept records");
    expect(await page.$eval("a[hreflang='ja']", (e) => e.getAttribute("href"))).toBe("/ja/records");
    expect(await rows(page)).toHaveLength(7);
    await page.type("#dateFrom", "11012026");
    await page.type("#dateTo", "11302026");
    await page.type("#amountMin", "20000");
    await page.type("#amountMax", "50000");
    await Promise.all([page.waitForNavigation(), page.click("#records-search button[type=submit]")]);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      dateFrom: "2026-11-01",
      dateTo: "2026-11-30",
      amountMin: "20000",
      amountMax: "50000",
    });
    expect((await rows(page)).map((r) => [r[0], r[1], r[4]])).toEqual([
      ["2026-11-08", "20000 JPY", "INV-2"],
      ["2026-11-12", "30000 JPY", "INV-3"],
      ["2026-11-16", "40000 JPY", "INV-4"],
      ["2026-11-20", "50000 JPY", "INV-5"],
    ]);
    await shoot(page, shots, "40-records-search");
  });

  it("narrows by a part of the counterparty written another way, and keeps the form's values", async () => {
    await page.goto(`${origin}/records?counterparty=${encodeURIComponent("ｻﾝﾌﾟﾙ")}&dateFrom=2026-11-01`);
    expect((await rows(page)).map((r) => r[4])).toEqual(["INV-1", "INV-3", "INV-5"]);
    expect(await page.$eval("#counterparty", (e) => (e as HTMLInputElement).value)).toBe("ｻﾝﾌﾟﾙ");
  });

  it("opens a record's PDF: the bytes as delivered", async () => {
    await page.goto(`${origin}/records?dateTo=2026-10-31`);
    const href = await page.$eval("#records tbody a", (e) => (e as HTMLAnchorElement).href);
    // Headless Chromium saves a PDF instead of showing it: the link is read with the browser's session.
    const cookie = (await page.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const pdf = await fetch(href, { headers: { cookie } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toMatch(/^inline; filename="/);
    expect(Buffer.from(await pdf.arrayBuffer()).equals(delivered)).toBe(true);
  });

  it("shows a bad range as an error in the page's language, the form keeping what was typed", async () => {
    const res = await page.goto(`${origin}/ja/records?dateFrom=2026-11-30&dateTo=2026-11-01&amountMin=abc`);
    expect(res?.status()).toBe(400);
    expect(await page.$eval("h1", (e) => e.textContent)).toBe("帳簿書類の検索");
    expect(await page.$eval("nav a[href='/ja/records']", (e) => e.textContent)).toBe("帳簿書類");
    expect(await page.$eval("a[hreflang='en']", (e) => e.getAttribute("href"))).toBe("/records");
    expect(await page.$eval("#records-error", (e) => e.textContent)).toContain(
      "amountMin: 最小通貨単位の整数で指定してください",
    );
    expect(await page.$eval("#dateFrom", (e) => (e as HTMLInputElement).value)).toBe("2026-11-30");
    expect(await page.$("#records")).toBeNull();
    await page.close();
  });

  it("exports the filtered records as CSV with a BOM and Japanese headers from /ja/records", async () => {
    const downloads = await (async () => {
      page = await browser.newPage();
      await logIn(page, origin, reader, "/ja/records?amountMin=40000");
      return allowDownloads(page);
    })();
    expect(await page.$eval("#records-retention", (e) => e.textContent)).toContain("7 年間");
    await page.click("#records-export");
    const csv = await downloads.next();
    rmSync(downloads.dir, { recursive: true, force: true });
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = csv.subarray(3).toString("utf8").trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "取引年月日,取引金額,通貨,取引先,書類の種類,書類番号,登録番号,ファイル名,SHA-256,記録ID,作成日時",
    );
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 4).join(","))).toEqual([
      "2026-11-16,40000,JPY,山田商店",
      "2026-11-20,50000,JPY,株式会社　サンプル",
      "2026-11-24,60000,JPY,山田商店",
    ]);
    await page.close();
  });

  it("shows another workspace's member none of them: an empty search and a 404 for the PDF", async () => {
    const context = await browser.createBrowserContext();
    const other = await context.newPage();
    await logIn(other, origin, outsider, "/records");
    expect(await other.$("#records tbody tr")).toBeNull();
    const record = await dynamoRecordStore().find(a.workspaceId, `site-${a.workspaceId}-1`);
    const foreign = await other.goto(`${origin}/records/${record!.recordId}/pdf?workspace=${a.workspaceId}`);
    expect(foreign?.status()).toBe(404);
    const own = await other.goto(`${origin}/records/${record!.recordId}/pdf?workspace=${b.workspaceId}`);
    expect(own?.status()).toBe(404);
    await context.close();
  });

  it("audits the site's searches, exports and downloads with the signed-in user", async () => {
    const entries = await listAudit(a.workspaceId, systemClock, 100);
    for (const action of ["records.search", "records.export", "record.download"]) {
      const entry = entries.find((e) => e.action === action);
      expect(entry?.actor, action).toEqual({ via: "session", userId: reader.id });
    }
    expect(entries.find((e) => e.action === "records.export")?.detail).toEqual({ amountMin: "40000" });
  });
});
