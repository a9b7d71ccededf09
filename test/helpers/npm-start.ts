import { type ChildProcess, spawn } from "node:child_process";
import { createServer, connect } from "node:net";
import { resolve } from "node:path";
import { parseReadyLine, type ReadyInfo } from "#infra/local/ready-line.ts";
import { UNLIMITED } from "./local-stack.ts";
import { isAlive } from "./processes.ts";

const repoRoot = resolve(import.meta.dirname, "../..");

/** `npm start` as a user runs it, in its own process group (as a terminal's job is). */
export interface NpmStart {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export function spawnNpmStart(env: { PORT: string; PLATEN_DATA_DIR: string } & Record<string, string>): NpmStart {
  const child = spawn("npm", ["start"], {
    cwd: repoRoot,
    env: { ...process.env, PLATEN_ACCESS_LOG: "0", PLATEN_RATE_LIMITS: UNLIMITED, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, output: () => output, exited };
}

/** Resolves with the ready line's contents; rejects if the process ends first. */
export async function readyOf(run: NpmStart, timeoutMs = 120_000): Promise<ReadyInfo> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const ready = parseReadyLine(run.output());
    if (ready) return ready;
    if (run.child.exitCode !== null) throw new Error(`npm start exited with ${run.child.exitCode}:\n${run.output()}`);
    await sleep(100);
  }
  throw new Error(`no ready line after ${timeoutMs} ms:\n${run.output()}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on right now (the OS picks it; closed again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolveOpen) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolveOpen(true);
    });
    socket.once("error", () => resolveOpen(false));
  });
}

/** Waits until none of the pids runs and the port is closed; returns what is still there at the deadline. */
export async function waitUntilGone(
  pids: number[],
  port: number,
  timeoutMs: number,
): Promise<{ alive: number[]; listening: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    const listening = await isListening(port);
    if ((!alive.length && !listening) || Date.now() > deadline) return { alive, listening };
    await sleep(200);
  }
}
