import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { invoiceItem, invoiceOf, mismatchedItem } from "../helpers/async-fixtures.ts";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { launchSiteBrowser, logIn, screenshotFolder, shoot } from "../helpers/site-browser.ts";
import { type GeneratedFile, generateFile } from "../helpers/site-fixtures.ts";
import { createSeededLike, createTenant } from "../helpers/sync-fixtures.ts";

let stack: SharedStack;
let browser: Browser;
let shots: string;
let origin: string;
let internal: GeneratedFile;
let invited: GeneratedFile;
let partialId: string;
type User = Awaited<ReturnType<typeof makeUser>>;
/** This file's own: a user of no workspace, the ADMIN of the files' workspace and the ADMIN of another. */
let stranger: User;
let demoAdmin: User;
let secondAdmin: User;

/** A browser profile of its own per visitor (cookies never mix). */
async function visitor(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.createBrowserContext();
  return { context, page: await context.newPage() };
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedStack(), launchSiteBrowser()]);
  // The site's own origin as the API hands it out (cookies and Origin checks are per host).
  origin = new URL(stack.localJson.siteUrl).origin;
  shots = screenshotFolder("members");
  const demo = await createSeededLike(stack, "Members");
  const second = await createTenant(stack, "Members, another workspace");
  [stranger, demoAdmin, secondAdmin] = await Promise.all([
    makeUser({}),
    makeUser({ [demo.id]: "admin" }),
    makeUser({ [second.workspaceId]: "admin" }),
  ]);
  internal = await generateFile(stack, demo, { fileName: "internal report", passthrough: { dept: "sales" } });
  invited = await generateFile(stack, demo, { fileName: "for the auditor", shareType: "02" });
  const design = invoiceOf(demo);
  partialId = (
    await acceptOrFail(stack, demo.appKey, "multiple", {
      designId: design.id,
      version: design.latestVersion,
      contents: [invoiceItem("good", { passthrough: { order: "A-7" } }), mismatchedItem("bad")],
    })
  ).requestId;
  await pollStatus(stack, demo.appKey, partialId);
  await settled(stack);
});

afterAll(async () => {
  await browser?.close();
  await stack?.release();
});

describe("logged-in visitors in a browser", () => {
  it("refuses a workspace file to an anonymous visitor and to a member of another workspace, shows it to a member", async () => {
    const anonymous = await visitor();
    expect((await anonymous.page.goto(`${origin}${internal.path}`))?.status()).toBe(404);
    await shoot(anonymous.page, shots, "10-workspace-file-anonymous");
    // The 404 page offers the login, which comes back to the file.
    await Promise.all([anonymous.page.waitForNavigation(), anonymous.page.click("main a")]);
    expect(new URL(anonymous.page.url()).pathname).toBe("/login");
    await anonymous.context.close();

    const other = await visitor();
    await logIn(other.page, origin, secondAdmin, internal.path);
    expect(new URL(other.page.url()).pathname).toBe(internal.path);
    expect(await other.page.$eval("h1", (e) => e.textContent)).toBe(
      t404(await other.page.$eval("html", (e) => e.lang)),
    );
    await shoot(other.page, shots, "11-workspace-file-other-workspace");
    await other.context.close();

    const member = await visitor();
    await logIn(member.page, origin, demoAdmin, internal.path);
    expect(await member.page.$eval("h1", (e) => e.textContent)).toBe("internal report");
    expect(await member.page.$("ol.pages img")).not.toBeNull();
    await shoot(member.page, shots, "12-workspace-file-member");
    await member.context.close();
  });

  it("shows an invited file to the invited user only", async () => {
    const admin = await visitor();
    await logIn(admin.page, origin, demoAdmin, invited.path);
    await admin.page.type("#invite-email", secondAdmin.email);
    await Promise.all([
      admin.page.waitForNavigation(),
      admin.page.click("#invitations ~ form button[type=submit], section form:last-of-type button[type=submit]"),
    ]);
    expect(await admin.page.$eval("#invitations", (e) => e.textContent)).toContain(secondAdmin.email);
    await shoot(admin.page, shots, "13-invited-file-admin");
    await admin.context.close();

    const guest = await visitor();
    await logIn(guest.page, origin, secondAdmin, invited.path);
    expect(await guest.page.$eval("h1", (e) => e.textContent)).toBe("for the auditor");
    expect(await guest.page.$("#invite-email")).toBeNull();
    await shoot(guest.page, shots, "14-invited-file-guest");
    await guest.context.close();

    const other = await visitor();
    await logIn(other.page, origin, stranger, invited.path);
    expect((await other.page.reload())?.status()).toBe(404);
    await other.context.close();
    const anonymous = await visitor();
    expect((await anonymous.page.goto(`${origin}${invited.path}`))?.status()).toBe(404);
    await anonymous.context.close();
  });

  it("shows the output history of an async request with a partial failure", async () => {
    const member = await visitor();
    await logIn(member.page, origin, demoAdmin, "/output-history");
    expect(await member.page.$eval("#history", (e) => e.textContent)).toContain(partialId);
    await shoot(member.page, shots, "15-output-history");
    await member.page.type("#q", "order=A-7");
    await Promise.all([member.page.waitForNavigation(), member.page.click("form[role=search] button[type=submit]")]);
    const rows = await member.page.$$eval("#history tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(partialId);
    await shoot(member.page, shots, "16-output-history-search");
    await Promise.all([member.page.waitForNavigation(), member.page.click(`a[href="/output-history/${partialId}"]`)]);
    expect(await member.page.$eval("#request-status", (e) => e.textContent)).toBe("Completed");
    expect(await member.page.$eval("#failed-files", (e) => e.textContent)).toContain("PARAMS_TYPE_MISMATCH");
    expect(await member.page.$eval("#failed-files a", (e) => e.getAttribute("href"))).toBe(
      "/docs/errors#params_type_mismatch",
    );
    expect(await member.page.$$eval("#request-files a", (as) => as.map((a) => a.textContent))).toEqual(["good"]);
    await shoot(member.page, shots, "17-output-history-request");
    await member.context.close();
  });
});

/** The 404 page's heading in the page's language. */
const t404 = (lang: string) => (lang === "ja" ? "見つかりません" : "Not found");
