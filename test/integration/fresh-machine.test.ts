import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LocalJson } from "#infra/local/seed.ts";
import { inflatedLayout } from "#shared/render/chromium-binary.ts";
import { freePort, type NpmStart, readyOf, spawnNpmStart } from "../helpers/npm-start.ts";

/**
 * A new machine has an empty temp folder: `npm start` must inflate the whole Chromium
 * layout itself (binary, ANGLE/SwiftShader and Vulkan libraries, fonts) before its first
 * render. Each case starts `npm start` as a user does, with a TMPDIR nothing has touched
 * and no CHROMIUM_PATH, and renders the sample invoice through the API.
 */
const folders: string[] = [];
const runs: NpmStart[] = [];
const fresh = (name: string): string => {
  const folder = mkdtempSync(join(tmpdir(), `platen-fresh-${name}-`));
  folders.push(folder);
  return folder;
};

afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null && run.child.pid) kill(-run.child.pid, "SIGKILL");
  await Promise.all(runs.map((r) => r.exited));
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

const sampleInvoice = JSON.parse(
  readFileSync(join(import.meta.dirname, "../../shared/designs/samples/invoice-ja/design.json"), "utf8"),
) as { sampleParams: Record<string, unknown> };

/** `npm start` on an empty TMPDIR and a fresh data folder: ready, one sample invoice rendered, stopped with Ctrl-C. */
async function startRenderStop(tmp: string): Promise<void> {
  const port = await freePort();
  const dataDir = fresh("data");
  const run = spawnNpmStart({ PORT: String(port), PLATEN_DATA_DIR: dataDir, TMPDIR: tmp, CHROMIUM_PATH: "" });
  runs.push(run);
  const ready = await readyOf(run);
  // Application keys and seeded passwords: for this user's eyes only.
  expect((statSync(ready.localJsonPath).mode & 0o777).toString(8)).toBe("600");
  const local = JSON.parse(readFileSync(ready.localJsonPath, "utf8")) as LocalJson;
  const demo = local.workspaces[0]!;
  const invoice = demo.designs.find((d) => d.label.includes("請求書"))!;
  const res = await fetch(`${ready.apiBaseUrl.replace("localhost", "127.0.0.1")}/file/sync/single`, {
    method: "POST",
    headers: { appkey: demo.appKey, "content-type": "application/json" },
    body: JSON.stringify({
      designId: invoice.id,
      version: 1,
      content: { fileName: "fresh-invoice", params: sampleInvoice.sampleParams },
    }),
  });
  const pdf = Buffer.from(await res.arrayBuffer());
  expect(res.status, `${pdf.toString("utf8", 0, 300)}\n${run.output()}`).toBe(200);
  expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
  expect(Number(res.headers.get("x-page-count"))).toBeGreaterThan(0);
  kill(-run.child.pid!, "SIGINT");
  await run.exited;
  expect(run.output()).toMatch(/\[platen\] stopped/);
}

/** The temp folder holds the whole layout, marked, and nothing of the inflation itself. */
function expectWholeLayout(tmp: string): void {
  const layout = inflatedLayout(tmp);
  expect(layout, "a complete, marked layout").toBeDefined();
  const paths = layout!.map((f) => f.path);
  for (const file of ["chromium", "libEGL.so", "libGLESv2.so", "libvk_swiftshader.so", "libvulkan.so.1"])
    expect(paths).toContain(file);
  expect(paths).toContain("vk_swiftshader_icd.json");
  expect(readdirSync(tmp).filter((e) => /staging|\.lock$/.test(e))).toEqual([]);
}

describe("a fresh machine (empty TMPDIR, no CHROMIUM_PATH)", () => {
  it("npm start inflates Chromium itself and renders the sample invoice", async () => {
    const tmp = fresh("tmp");
    await startRenderStop(tmp);
    expectWholeLayout(tmp);
  }, 240_000);

  it("two npm starts at once on one empty TMPDIR both render", async () => {
    const tmp = fresh("tmp");
    await Promise.all([startRenderStop(tmp), startRenderStop(tmp)]);
    expectWholeLayout(tmp);
  }, 240_000);
});
