import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";

const VISITOR_UNLIKE = new Set([
  "--single-process",
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
]);

/**
 * The project's own Chromium (@sparticuz/chromium, as the renderer uses it), driven by
 * puppeteer-core like a visitor's browser: real navigation, forms, cookies and downloads.
 */
export async function launchSiteBrowser(): Promise<Browser> {
  chromium.setGraphicsMode = false;
  return puppeteer.launch({
    executablePath: await resolveExecutablePath(process.env.CHROMIUM_PATH),
    // A visitor's browser: the renderer's single-process mode and its relaxed security are left out.
    args: chromium.args.filter((flag) => !VISITOR_UNLIKE.has(flag)),
    headless: "shell",
    pipe: true,
    // The fonts the renderer registers (Noto Sans JP): Japanese pages render as a visitor sees them.
    env: { ...process.env, ...(await prepareFontEnv()) },
    protocolTimeout: 60_000,
  });
}

/** A fresh folder for this run's screenshots (printed so a reviewer can find them). */
export function screenshotFolder(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `platen-site-${name}-`));
  console.log(`screenshots of ${name}: ${dir}`);
  return dir;
}

/** A full-page PNG of what the visitor sees now. */
export async function shoot(page: Page, dir: string, name: string): Promise<string> {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Lets `page` save downloads into a new folder and returns a waiter for the next finished `.pdf`, `.zip` or `.csv`. */
export async function allowDownloads(page: Page): Promise<{ dir: string; next(timeoutMs?: number): Promise<Buffer> }> {
  const dir = mkdtempSync(join(tmpdir(), "platen-site-downloads-"));
  mkdirSync(dir, { recursive: true });
  const cdp = await page.createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: dir, eventsEnabled: true });
  const seen = new Set<string>();
  return {
    dir,
    async next(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const done = readdirSync(dir).find((f) => !seen.has(f) && /\.(pdf|zip|csv)$/.test(f));
        if (done && existsSync(join(dir, done))) {
          seen.add(done);
          return readFileSync(join(dir, done));
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no download finished in ${dir}`);
    },
  };
}

/** Logs `page` in through the site's login form and returns where it landed. */
export async function logIn(
  page: Page,
  origin: string,
  user: { email: string; password: string },
  returnTo = "/",
): Promise<string> {
  await page.goto(`${origin}/login?return_to=${encodeURIComponent(returnTo)}`);
  await page.type("#email", user.email);
  await page.type("#password", user.password);
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  return page.url();
}
