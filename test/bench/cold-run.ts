import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { ESM_REQUIRE_BANNER } from "#infra/stack/function-bundle.ts";
import type { AwsCalls } from "#infra/local/aws-calls.ts";
import type { ColdTimes } from "./cold-invoke.ts";

const here = import.meta.dirname;

/** The two child programs, bundled once per bench so no TypeScript loader runs in a cold process. */
export async function buildColdChildren(outdir: string): Promise<{ invoke: string; floor: string }> {
  const bundle = async (name: string) => {
    const outfile = join(outdir, `${name}.mjs`);
    await build({
      entryPoints: [join(here, `${name}.ts`)],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      banner: { js: ESM_REQUIRE_BANNER },
      outfile,
      logLevel: "error",
    });
    return outfile;
  };
  return { invoke: await bundle("cold-invoke"), floor: await bundle("cold-floor") };
}

/** Milliseconds from the parent's spawn call to each milestone of the child. */
export interface ColdRun {
  ready: number;
  browserLaunched?: number;
  pdfPrinted?: number;
  answered: number;
  status: number | string;
  cpuMs?: number;
  /** The cold invocation's end (after-work included), and a warm invocation's median duration. */
  done?: number;
  warmMs?: number;
  aws?: AwsCalls;
  body?: string;
  /** What the child printed besides its times (the function's log lines). */
  output: string;
}

const epochNow = () => performance.timeOrigin + performance.now();

/**
 * One fresh process with an empty TMPDIR (what a new Lambda container sees), only the
 * given environment (plus PATH), the job in a file; removed afterwards with its TMPDIR.
 */
export async function runCold(
  program: string,
  job: unknown,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ColdRun> {
  const dir = mkdtempSync(join(tmpdir(), "platen-cold-"));
  const tmp = join(dir, "tmp");
  const jobFile = join(dir, "job.json");
  writeFileSync(jobFile, JSON.stringify(job));
  mkdirSync(tmp);
  try {
    const spawnedAt = epochNow();
    const out = await runChild([...nodeArgs, program], jobFile, {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      LANG: "C.UTF-8",
      ...env,
      TMPDIR: tmp,
    });
    const lines = out.stdout.trim().split("\n");
    const times = JSON.parse(lines.at(-1)!) as ColdTimes;
    const since = (t: number | undefined) => (t === undefined ? undefined : t - spawnedAt);
    return {
      ready: since(times.ready)!,
      browserLaunched: since(times.browserLaunched),
      pdfPrinted: since(times.pdfPrinted),
      answered: since(times.answered)!,
      status: times.status,
      cpuMs: times.cpuMs,
      done: since(times.done),
      warmMs: times.warmMs,
      aws: times.aws,
      body: times.body,
      output: [...lines.slice(0, -1), out.stderr].join("\n"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

function runChild(
  args: string[],
  jobFile: string,
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  const program = args.at(-1);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, jobFile], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0 && stdout.trim()) resolve({ stdout, stderr });
      else reject(new Error(`cold run of ${program} exited with ${code}:\n${stderr.slice(-4000)}`));
    });
  });
}
