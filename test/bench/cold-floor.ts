import { readFileSync } from "node:fs";
import { launchChromium } from "#shared/render/chromium-launch.ts";
import { prepareFontEnv } from "#shared/render/font-config.ts";
import { pdfOptions, resolvePageBox } from "#shared/render/page-box.ts";

/**
 * The cold floor, in a fresh process like a cold run: the same Chromium binary (already
 * unpacked), flags and fonts, then `setContent` + `pdf` of the already templated invoice,
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
const browser = await launchChromium({
  chromiumPath: job.chromiumPath,
  fontEnv: await prepareFontEnv(job.fontDir),
  protocolTimeoutMs: 60_000,
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
