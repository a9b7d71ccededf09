import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalJson } from "#infra/local/seed.ts";
import { resolveExecutablePath } from "#shared/render/chromium-binary.ts";
import { freePort, type NpmStart, readyOf, sleep, spawnNpmStart, waitUntilGone } from "../helpers/npm-start.ts";
import { descendants } from "../helpers/processes.ts";

/**
 * A first run as a user meets it: `npm start` in a child process (npm,
 * its shell, node, Chromium), readiness, a second start on the same data folder, and every
 * way of ending it. One data folder for the file, so only the first start seeds.
 */

let dataDir: string;
/** The stacks' own temp folder: after each clean stop it holds only the font cache (no browser profiles). */
let stackTmp: string;
let chromiumPath: string;
const runs: NpmStart[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "platen-first-run-"));
  stackTmp = mkdtempSync(join(tmpdir(), "platen-first-run-tmp-"));
  chromiumPath = await resolveExecutablePath(); // the binary already inflated, not a copy per temp folder
});

afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null && run.child.pid) kill(-run.child.pid, "SIGKILL");
  await Promise.all(runs.map((r) => r.exited));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(stackTmp, { recursive: true, force: true });
});

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function start(port: number): NpmStart {
  const run = spawnNpmStart({
    PORT: String(port),
    PLATEN_DATA_DIR: dataDir,
    TMPDIR: stackTmp,
    CHROMIUM_PATH: chromiumPath,
  });
  runs.push(run);
  return run;
}

const localJsonPath = () => join(dataDir, "local.json");
const runtimePid = () => (JSON.parse(readFileSync(join(dataDir, "runtime.json"), "utf8")) as { pid: number }).pid;

/** Renders one PDF so the stack has a Chromium to leave behind, if it would. */
async function renderOne(apiBaseUrl: string): Promise<void> {
  const local = JSON.parse(readFileSync(localJsonPath(), "utf8")) as LocalJson;
  const demo = local.workspaces[0]!;
  const res = await fetch(`${apiBaseUrl}/file/sync/single`, {
    method: "POST",
    headers: { appkey: demo.appKey, "content-type": "application/json" },
    body: JSON.stringify({ designId: demo.designs[0]!.id, version: 1, content: { fileName: "x", params: {} } }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe("readiness and a second start", () => {
  let first: NpmStart;
  let port: number;

  it("answers 503 SERVICE_STARTING until local.json is written, then prints one ready line", async () => {
    port = await freePort();
    first = start(port);
    const starting: Response[] = [];
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50)) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/health/check`, {
        headers: { "accept-language": "ja" },
      }).catch(() => undefined);
      if (!res) continue; // not listening yet
      if (res.status === 200) {
        // The whole point: whoever sees 200 can read local.json right away.
        expect(existsSync(localJsonPath())).toBe(true);
        expect((JSON.parse(readFileSync(localJsonPath(), "utf8")) as LocalJson).workspaces).toHaveLength(2);
        break;
      }
      starting.push(res);
      if (starting.length === 1) {
        const body = await res.json();
        expect(body).toMatchObject({
          statusCode: 503,
          code: "SERVICE_STARTING",
          error: "Service Unavailable",
          details: [],
        });
        expect(body.message).toMatch(/[\u3040-\u30ff]/); // in the caller's language
        expect(body.docsUrl).toMatch(/\/ja\/docs\/errors#service_starting$/);
        expect(res.headers.get("retry-after")).toBe("1");
      } else await res.arrayBuffer();
    }
    expect(starting.length, "seeding takes seconds: some requests came before it ended").toBeGreaterThan(0);
    expect(starting.every((r) => r.status === 503)).toBe(true);
    const ready = await readyOf(first);
    expect(ready).toEqual({
      apiBaseUrl: `http://localhost:${port}/v1`,
      siteUrl: `http://localhost:${port}`,
      localJsonPath: localJsonPath(),
    });
    expect(
      first
        .output()
        .split("\n")
        .filter((l) => /\bready\b/i.test(l)),
    ).toHaveLength(1);
  });

  it("refuses a second start on the same data folder, naming the port and pid", async () => {
    const second = start(await freePort());
    expect(await second.exited).toBe(1);
    const pid = runtimePid();
    expect(second.output()).toContain(
      `Platen is already running on port ${port} (pid ${pid}) with this data folder (${dataDir}); stop it or set PLATEN_DATA_DIR`,
    );
    expect(second.output()).not.toMatch(/ECONNREFUSED|\n\s+at /);
    // The first stack is untouched: still serving, still owning the folder.
    expect((await fetch(`http://127.0.0.1:${port}/v1/health/check`)).status).toBe(200);
    expect(runtimePid()).toBe(pid);
  });

  it("stops on SIGTERM to npm: the port closes and no process of it remains", async () => {
    await renderOne(`http://127.0.0.1:${port}/v1`);
    await expectStopped(first, port, () => kill(first.child.pid!, "SIGTERM"));
  });
});

describe("every way of ending `npm start`", () => {
  const ways: [string, (run: NpmStart) => void][] = [
    ["Ctrl-C (SIGINT to the process group)", (run) => kill(-run.child.pid!, "SIGINT")],
    ["SIGTERM to node", () => kill(runtimePid(), "SIGTERM")],
    ["the terminal closing (SIGHUP to the process group)", (run) => kill(-run.child.pid!, "SIGHUP")],
    ["npm killed outright (SIGKILL to npm)", (run) => kill(run.child.pid!, "SIGKILL")],
  ];

  it.each(ways)("stops on %s", async (_way, end) => {
    const port = await freePort();
    chmodSync(localJsonPath(), 0o644); // as an older start left it
    const run = start(port);
    await readyOf(run);
    expect((statSync(localJsonPath()).mode & 0o777).toString(8), "keys and passwords: this user only").toBe("600");
    await renderOne(`http://127.0.0.1:${port}/v1`);
    await expectStopped(run, port, () => end(run));
  });
});

/** Ends a started stack one way and checks that everything it started is gone within seconds. */
async function expectStopped(run: NpmStart, port: number, end: () => void): Promise<void> {
  const tree = descendants(run.child.pid!);
  expect(
    tree.some((p) => /chromium/.test(p.command)),
    "a Chromium was running",
  ).toBe(true);
  end();
  const left = await waitUntilGone([run.child.pid!, ...tree.map((p) => p.pid)], port, 20_000);
  expect(left, run.output()).toEqual({ alive: [], listening: false });
  expect(existsSync(join(dataDir, "runtime.json")), `a clean stop removes runtime.json\n${run.output()}`).toBe(false);
  // The renderer removes a browser's profile when it exits: a clean stop leaves none behind.
  // Not ours: tsx's cache, and the module compile cache npm itself enables on Node 22.
  expect(
    readdirSync(stackTmp).filter((e) => e !== "platen-fonts" && !e.startsWith("tsx-") && e !== "node-compile-cache"),
    run.output(),
  ).toEqual([]);
}
