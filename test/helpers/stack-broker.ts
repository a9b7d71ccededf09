import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { buildForRun, removeRunBuild } from "./local-build.ts";
import { copySeeded, type RunningStack, removeDataDir, startStack } from "./local-stack.ts";
import { isAlive } from "./processes.ts";

/** What a test file gets of a shared stack (shared-stack.ts): enough to reach it and read its stores. */
export interface SharedStackInfo {
  dataDir: string;
  port: number;
  pid: number;
  localJson: RunningStack["localJson"];
  baseUrl: string;
  /** Everything the stack printed; the file's part starts at `outputFrom` (bytes). */
  outputFile: string;
  outputFrom: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The stack broker's URL (this module, the suite's globalSetup). */
    stackBroker: string;
  }
}

/**
 * The suite's globalSetup: a broker that keeps one stack with default settings per
 * test worker (VITEST_POOL_ID) for the files that call `sharedStack()`, so a worker's
 * files run one after another on one stack instead of starting one each (a start is
 * 5–10 s of a 2-core machine). A stack starts when a worker first asks for one, so a
 * run without such files starts none; a stack that died is replaced; all stop at the end.
 * It also seeds one data dir per run that the other starts copy (local-stack.ts), and
 * builds the functions' deployed bundles once per run for the files that read
 * them (deployed-bundles.ts), on first request, in a child process.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let dir: string | undefined;
  const stacks = new Map<string, Promise<{ stack: RunningStack; outputFile: string }>>();

  let seeded: Promise<string> | undefined;
  project.provide("localPrebuilt", await buildForRun());

  /** The run's seeded data dir: one fresh start, stopped, that every other start copies. */
  function seed(): Promise<string> {
    if (!seeded) {
      const entry = startStack({ fresh: true }).then(async (stack) => {
        await stack.stop();
        return stack.dataDir;
      });
      // A failed seed is not kept: the next start asking tries again (and reports its own error).
      entry.catch(() => {
        if (seeded === entry) seeded = undefined;
      });
      seeded = entry;
    }
    return seeded;
  }

  async function start(pool: string) {
    dir ??= mkdtempSync(join(tmpdir(), "platen-shared-stacks-"));
    const outputFile = join(dir, `stack-${pool}-${Date.now()}.log`);
    writeFileSync(outputFile, "");
    const dataDir = mkdtempSync(join(tmpdir(), "platen-test-"));
    copySeeded(await seed(), dataDir);
    return { stack: await startStack({ outputFile, dataDir }), outputFile };
  }

  async function acquire(pool: string): Promise<SharedStackInfo> {
    let entry = stacks.get(pool);
    if (entry) {
      const { stack } = await entry.catch(() => ({ stack: undefined }));
      if (!stack || !isAlive(stack.pid)) {
        if (stack) removeDataDir(stack.dataDir);
        entry = undefined;
      }
    }
    if (!entry) {
      entry = start(pool);
      stacks.set(pool, entry);
    }
    const { stack, outputFile } = await entry;
    const { dataDir, port, pid, localJson, baseUrl } = stack;
    return { dataDir, port, pid, localJson, baseUrl, outputFile, outputFrom: statSync(outputFile).size };
  }

  const bundles = new Map<string, Promise<Record<string, string>>>();

  /** `{ id: codeDir }` of one synthesis with bundling of `ids` (test/infra/synth-bundles.ts), once per id set. */
  function bundle(ids: string[]): Promise<Record<string, string>> {
    const key = [...ids].sort().join(",");
    let entry = bundles.get(key);
    if (!entry) {
      dir ??= mkdtempSync(join(tmpdir(), "platen-shared-stacks-"));
      const outdir = join(dir, `cdk.out-${bundles.size}`);
      const script = join(import.meta.dirname, "../infra/synth-bundles.ts");
      entry = promisify(execFile)(process.execPath, ["--import", "tsx", script, outdir, ...ids], {
        maxBuffer: 2 ** 24,
      }).then(({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, string>);
      // A failed build is not kept: the next file asking tries again (and reports its own error).
      entry.catch(() => bundles.delete(key));
      bundles.set(key, entry);
    }
    return entry;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://broker");
    if (req.method === "POST" && url.pathname === "/seeded") {
      seed().then(
        (dataDir) => res.writeHead(200, { "content-type": "text/plain" }).end(dataDir),
        (err: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(err.stack ?? err.message),
      );
      return;
    }
    if (req.method === "POST" && url.pathname === "/bundles") {
      bundle((url.searchParams.get("ids") ?? "").split(",").filter(Boolean)).then(
        (dirs) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(dirs)),
        (err: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(err.stack ?? err.message),
      );
      return;
    }
    if (req.method !== "POST" || url.pathname !== "/acquire") {
      res.writeHead(404).end();
      return;
    }
    acquire(url.searchParams.get("pool") ?? "1").then(
      (info) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(info)),
      (err: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(err.stack ?? err.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("stackBroker", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  return async () => {
    server.close();
    await Promise.all([...bundles.values()].map((entry) => entry.catch(() => undefined)));
    const seededDir = await seeded?.catch(() => undefined);
    if (seededDir) removeDataDir(seededDir);
    await Promise.all(
      [...stacks.values()].map(async (entry) => {
        const started = await entry.catch(() => undefined);
        if (!started) return;
        await started.stack.stop();
        removeDataDir(started.stack.dataDir);
      }),
    );
    if (dir) rmSync(dir, { recursive: true, force: true });
    removeRunBuild();
  };
}
