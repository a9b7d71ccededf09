import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  AlreadyRunningError,
  claimDataDir,
  readLiveRuntime,
  removeRuntime,
  runtimePath,
} from "#infra/local/runtime-file.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "platen-runtime-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (runtime: object) => writeFileSync(runtimePath(dir), JSON.stringify(runtime));

it("claims a free data folder with this process's pid, and removes only its own file", () => {
  claimDataDir(dir);
  expect(JSON.parse(readFileSync(runtimePath(dir), "utf8"))).toEqual({ pid: process.pid });
  removeRuntime(dir);
  expect(readLiveRuntime(dir)).toBeUndefined();
  write({ pid: 1, port: 3000 });
  removeRuntime(dir);
  expect(readFileSync(runtimePath(dir), "utf8")).toContain('"pid":1');
});

const claimedBy = () => JSON.parse(readFileSync(runtimePath(dir), "utf8")) as { pid: number; port?: number };

it("takes over after a crash: a pid that no longer runs, or a half-written file", () => {
  write({ pid: 2 ** 22 + 12345, port: 3000 }); // above Linux's pid_max default: never a live pid
  expect(readLiveRuntime(dir)).toBeUndefined();
  claimDataDir(dir);
  expect(claimedBy()).toEqual({ pid: process.pid });
  writeFileSync(runtimePath(dir), '{"pid": 12');
  expect(readLiveRuntime(dir)).toBeUndefined();
  claimDataDir(dir);
  expect(claimedBy()).toEqual({ pid: process.pid });
});

it("does not mistake another program that got the pid for the stack", () => {
  write({ pid: process.ppid, port: 3000 }); // alive, but not `infra/local/start.ts`
  expect(readLiveRuntime(dir)).toBeUndefined();
  claimDataDir(dir);
  expect(claimedBy()).toEqual({ pid: process.pid });
});

// The entry as `npm start` runs it, and as the test suite's prebuilt stack does (test/helpers/local-build.ts).
it.each(["infra/local/start.ts", "node_modules/.cache/platen-prebuilt-1/infra/local/start.js"])(
  "refuses when the stack runs (%s): names the port and pid",
  async (entry) => {
    // Any live process whose command line is the stack's entry counts; this one only sleeps.
    const fake = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)", entry], {
      stdio: "ignore",
    });
    try {
      write({ pid: fake.pid, port: 4321 });
      expect(() => claimDataDir(dir)).toThrow(AlreadyRunningError);
      expect(() => claimDataDir(dir)).toThrow(
        `Platen is already running on port 4321 (pid ${fake.pid}) with this data folder (${dir}); stop it or set PLATEN_DATA_DIR`,
      );
      write({ pid: fake.pid });
      expect(() => claimDataDir(dir)).toThrow(`Platen is already starting (pid ${fake.pid})`);
    } finally {
      fake.kill("SIGKILL");
    }
  },
);
