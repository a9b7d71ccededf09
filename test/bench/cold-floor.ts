import { readFileSync } from "node:fs";
import puppeteer from "puppeteer-core";
import { browserEnv, chromiumArgs } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { pdfOptions, resolvePageBox } from "#shared/render/page-box.ts";

/**
 * The cold floor, in a fresh process like a cold run: the same Chromium binary (already
 * unpacked), flags and fonts, launched by puppeteer, then `setContent` + `pdf` of the already templated invoice,
 * nothing else (no bundle, no AWS, no post-processing). Bundled by esbuild before the bench.
 * argv: job file `{ chromiumPath, fontDir, html, page }`. Prints epoch times like cold-invoke.
 */
interface FloorJob {
  chromiumPath: string;
  fontDir: string;
  html: string;
  page: Parameters<typeof resolvePageBox>[0];
}

const now = () => performance.timeOrigin + performance.now();
const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as FloorJob;
const ready = now();
// What a plain puppeteer program does: puppeteer.launch, with the renderer's command line
// (puppeteer's defaults + chromiumArgs, test/render/chromium-launch.test.ts) and environment.
const browser = await puppeteer.launch({
  executablePath: job.chromiumPath,
  args: chromiumArgs(),
  headless: "shell",
  pipe: true,
  env: browserEnv(await prepareFontEnv(job.fontDir)),
  protocolTimeout: 60_000,
});
const browserLaunched = now();
const page = await browser.newPage();
await page.setContent(job.html, { waitUntil: "load" });
const pdf = await page.pdf(pdfOptions(resolvePageBox(job.page), 60_000));
const answered = now();
process.stdout.write(
  `${JSON.stringify({ start: performance.timeOrigin, ready, browserLaunched, pdfPrinted: answered, answered, cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000, status: pdf.length > 0 ? 200 : 500 })}\n`,
);
await browser.close();
process.exit(0);
