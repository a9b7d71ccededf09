import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeConfidentialClient, makeUser } from "../helpers/identity-fixtures.ts";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { launchSiteBrowser, logIn, screenshotFolder, shoot } from "../helpers/site-browser.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

let stack: SharedStack;
/** This file's own workspace, its ADMIN and an OAuth client of it. */
let ws: Awaited<ReturnType<typeof createSeededLike>>;
let admin: Awaited<ReturnType<typeof makeUser>>;
let clientId: string;
let browser: Browser;
let shots: string;
let origin: string;
let page: Page;

beforeAll(async () => {
  [stack, browser] = await Promise.all([sharedStack(), launchSiteBrowser()]);
  origin = new URL(stack.localJson.siteUrl).origin;
  shots = screenshotFolder("settings");
  ws = await createSeededLike(stack, "Settings");
  admin = await makeUser({ [ws.id]: "admin" });
  clientId = (await makeConfidentialClient(ws.id)).clientId;
  page = await browser.newPage();
  await logIn(page, origin, admin, "/settings");
});

afterAll(async () => {
  await browser?.close();
  await stack?.release();
});

describe("workspace settings in a browser", () => {
  it("shows the key's last rotation, the members and the OAuth clients", async () => {
    expect(new URL(page.url()).pathname).toBe("/settings");
    expect(await page.$eval("#key-rotated", (e) => e.textContent)).toMatch(/UTC \(0 days ago\)/);
    expect(await page.$("#key-warning")).toBeNull();
    expect(await page.$eval("#members", (e) => e.textContent)).toContain(admin.email);
    expect(await page.$eval("#clients", (e) => e.textContent)).toContain(clientId);
    await shoot(page, shots, "20-settings");
  });

  it("creates an endpoint, shows its secret once, and warns about a design the workspace does not have", async () => {
    const design = ws.designs[0]!;
    await page.type("#new-url", "https://hooks.example.com/platen");
    await page.click("#create-endpoint input[name=designFilterType][value=selected]");
    await page.click(`#create-endpoint input[name=targetDesignIds][value="${design.id}"]`);
    await page.type("#new-other", "DELETEDdesign001");
    await Promise.all([page.waitForNavigation(), page.click("#create-endpoint button[type=submit]")]);
    expect(await page.$eval("#shown-secret", (e) => e.textContent)).toMatch(/^whsec_[\w-]{43}$/);
    const warning = await page.$eval('[data-warning="missing-designs"]', (e) => e.textContent);
    expect(warning).toContain("DELETEDdesign001");
    expect(warning).not.toContain(design.id);
    await shoot(page, shots, "21-settings-endpoint-created");
  });

  it("disables the endpoint and regenerates its secret", async () => {
    await page.goto(`${origin}/settings`);
    await Promise.all([page.waitForNavigation(), page.click('[data-endpoint] button[data-action="disable"]')]);
    expect(await page.$eval("[data-endpoint]", (e) => e.textContent)).toContain("Disabled");
    await Promise.all([page.waitForNavigation(), page.click('[data-endpoint] button[data-action="regenerate"]')]);
    expect(await page.$eval("#shown-secret", (e) => e.textContent)).toMatch(/^whsec_/);
    await shoot(page, shots, "22-settings-secret-regenerated");
  });

  it("rotates the application key: the new key is shown once, the API refuses the old one and accepts the new one", async () => {
    const oldKey = ws.appKey;
    const designs = (appKey: string) => api(stack, appKey)("/file/designs");
    expect((await designs(oldKey)).status).toBe(200);
    await page.goto(`${origin}/settings`);
    await Promise.all([page.waitForNavigation(), page.click("#rotate-key")]);
    const newKey = (await page.$eval("#shown-secret", (e) => e.textContent)) ?? "";
    expect(newKey).not.toBe("");
    expect(newKey).not.toBe(oldKey);
    expect(await page.$eval("#flash", (e) => e.textContent)).toContain("shown only this once");
    await shoot(page, shots, "23-settings-key-rotated");
    expect((await designs(oldKey)).status).toBe(401);
    expect((await designs(newKey)).status).toBe(200);
    // Shown once: the settings page reached again does not repeat it.
    await page.goto(`${origin}/settings`);
    expect(await page.$("#shown-secret")).toBeNull();
    expect(await page.content()).not.toContain(newKey);
  });
});
