import type { Page } from "puppeteer-core";
import type { RunningStack } from "../helpers/local-stack.ts";
import { launchSiteBrowser, logIn } from "../helpers/site-browser.ts";
import { fmt, percentile } from "./stats.ts";

/** What the page records, in its own clock (performance.now()): no DevTools round trip in the figures. */
interface Marks {
  lastKey: number;
  /** The preview call of the newest image: sent and answered (Resource Timing). */
  sent: number;
  answered: number;
  shown: number;
}

/**
 * The design studio's preview as a designer meets it: the real editor (CodeMirror, its script)
 * in the project's Chromium, signed in to the local stack, on the sample invoice. Each run types
 * a change into the template and takes the time from the last keystroke until the preview's new
 * page image is decoded on the page (the editor's pause after typing included). Odd runs type three
 * characters at the end of the template, even runs delete them, so the document stays one page.
 */
export async function runStudioPhase(stack: RunningStack, runs: number, warmUp = 3): Promise<string[]> {
  const demo = stack.localJson.workspaces[0]!;
  const invoice = demo.designs.find((d) => d.label.includes("請求書"))!.id;
  const user = stack.localJson.users.find((u) => u.email === "demo@platen.local")!;
  const origin = new URL(stack.localJson.siteUrl).origin;
  const browser = await launchSiteBrowser();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 860 });
    await logIn(page, origin, user, `/designs/${invoice}`);
    await page.waitForSelector("#preview-pages img", { timeout: 60_000 });
    await page.evaluate(installMarks);
    await page.click('.cm-content[data-file="template"]');
    await page.keyboard.down("Control");
    await page.keyboard.press("End");
    await page.keyboard.up("Control");
    const total: number[] = [];
    const parts = { pause: [] as number[], call: [] as number[], show: [] as number[] };
    for (let i = 0; i < warmUp + runs; i++) {
      const marks = await typeAndWait(page, i % 2 === 0);
      if (i < warmUp) continue;
      total.push(marks.shown - marks.lastKey);
      parts.pause.push(marks.sent - marks.lastKey);
      parts.call.push(marks.answered - marks.sent);
      parts.show.push(marks.shown - marks.answered);
    }
    const row = (label: string, xs: number[], target = "") =>
      `| ${label} | ${fmt(percentile(xs, 50))} | ${fmt(percentile(xs, 95))} | ${target} |`;
    return [
      `N=${runs} after ${warmUp} warm-up runs, the sample invoice's editor in the project's Chromium (c=1)`,
      "| studio preview | p50 ms | p95 ms | target |",
      "|---|---|---|---|",
      row("last keystroke → updated page image decoded", total, "p50 ≤ 700 ms"),
      row("… the editor's pause, keystroke → preview call sent", parts.pause),
      row("… the preview call (POST /designs/{id}/preview: checks, PDF, page image)", parts.call),
      row("… answer → image decoded on the page", parts.show),
    ];
  } finally {
    await browser.close();
  }
}

/** Types (or deletes) three characters, then waits for the preview they cause and the autosave after it. */
async function typeAndWait(page: Page, add: boolean): Promise<Marks> {
  const before = await page.evaluate(() => (window as unknown as BenchWindow).benchShown.length);
  if (add) await page.keyboard.type("abc", { delay: 40 });
  else for (let k = 0; k < 3; k++) await page.keyboard.press("Backspace", { delay: 40 });
  await page.waitForFunction(
    (n) => (window as unknown as BenchWindow).benchShown.length > n,
    { timeout: 30_000 },
    before,
  );
  // The draft saves itself 800 ms after the keystroke: let it finish before the next run types.
  await new Promise((r) => setTimeout(r, 700));
  return page.evaluate(() => {
    const w = window as unknown as BenchWindow;
    const call = performance
      .getEntriesByType("resource")
      .filter((e) => e.name.endsWith("/preview"))
      .at(-1) as PerformanceResourceTiming;
    return { lastKey: w.benchLastKey, sent: call.startTime, answered: call.responseEnd, shown: w.benchShown.at(-1)! };
  });
}

interface BenchWindow {
  benchLastKey: number;
  benchShown: number[];
}

/** In the page: the last keystroke's time, and when each new first page image is decoded. */
function installMarks(): void {
  const w = window as unknown as BenchWindow;
  w.benchLastKey = 0;
  w.benchShown = [];
  document.addEventListener("keydown", () => (w.benchLastKey = performance.now()), true);
  const holder = document.getElementById("preview-pages")!;
  new MutationObserver(async () => {
    const img = holder.querySelector("img");
    if (!img) return;
    await img.decode().catch(() => undefined);
    w.benchShown.push(performance.now());
  }).observe(holder, { childList: true });
  performance.setResourceTimingBufferSize(10_000);
}
