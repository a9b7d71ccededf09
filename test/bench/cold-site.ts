import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UNLIMITED } from "../helpers/local-stack.ts";
import { loginCookie } from "../helpers/site-fixtures.ts";
import { readyRuntime, stackEnvironment } from "../helpers/stack-clients.ts";
import { synthDeployedFunctions, remapOpt, unzippedSizeMb } from "./cold-artefacts.ts";
import type { ColdTarget } from "./cold.ts";
import { siteEvent } from "./cold-events.ts";
import { buildColdChildren, type ColdRun, runCold } from "./cold-run.ts";
import { fmt, percentile } from "./stats.ts";

/**
 * The site function's cold starts, measured as the API functions' (cold.ts): its deployed bundle
 * (synthesized with bundling on) in a fresh process per page, with an empty TMPDIR and the running
 * stack's emulators, signed in as the first seeded user. Per round: the dashboard (`/`), the designs
 * list and a design's editor, each the first request of its own process; first byte = the first
 * body bytes of the streamed answer. The goal of the site's pages: ≤ 300 ms to the first byte cold.
 */
export async function runSiteColdPhase(
  target: ColdTarget,
  n: number,
  log: (line: string) => void,
  /** The asset folder of another build of the site (a saved `codeDir`), run in the same rounds: a bundle change A/B. */
  compareDir?: string,
): Promise<string[]> {
  const work = await mkdtemp(join(tmpdir(), "platen-cold-site-"));
  try {
    log("  synthesizing the site's bundle…");
    const site = synthDeployedFunctions(["site"], join(work, "cdk.out")).site!;
    const children = await buildColdChildren(work);
    log(`  unzipped code + layers: ${fmt(unzippedSizeMb(site))} MB`);
    const runtime = readyRuntime(target.dataDir);
    const user = target.localJson.users[0]!;
    const cookie = await loginCookie(runtime.urls.siteUrl, user);
    if (!cookie.includes("=")) throw new Error("the bench user could not sign in to the site");
    const ws = target.localJson.workspaces.find((w) => w.id === user.workspaceIds[0])!;
    const pages = { "/": "/", "/designs": "/designs", "/designs/{id} (editor)": `/designs/${ws.designs[0]!.id}` };
    const env = {
      ...stackEnvironment(target.dataDir),
      PLATEN_RATE_LIMITS: UNLIMITED,
      // In AWS the keys' seeds are a secret (PLATEN_IDENTITY_SECRET_ID); the local stack keeps them in a file.
      PLATEN_IDENTITY_KEYS_FILE: join(target.dataDir, "identity-keys.json"),
      ...remapOpt(site),
      AWS_LAMBDA_FUNCTION_NAME: "platen-bench-site",
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(site.memoryMb),
      LAMBDA_TASK_ROOT: site.codeDir,
    };
    const runs = new Map<string, ColdRun[]>();
    for (let i = 0; i < n; i++) {
      const line: string[] = [];
      for (const [page, path] of Object.entries(pages)) {
        for (const [label, codeDir] of builds(page, site.codeDir, compareDir)) {
          const job = { codeDir, event: siteEvent({ path, cookie }), timeoutSeconds: site.timeoutSeconds, warmRuns: 3 };
          const run = await runCold(children.invoke, job, env);
          if (run.status !== 200)
            throw new Error(`the site answered ${path} with ${run.status}:\n${run.output.slice(-4000)}`);
          runs.set(label, [...(runs.get(label) ?? []), run]);
          line.push(`${label} ${fmt(run.answered)} ms`);
        }
      }
      log(`  round ${i + 1}/${n}: ${line.join(", ")}`);
    }
    return siteTable(runs);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The synthesized bundle, and the compared one beside it. */
const builds = (page: string, codeDir: string, compareDir?: string): [string, string][] => [
  [page, codeDir],
  ...(compareDir ? ([[`${page}, the bundle in ${compareDir}`, compareDir]] as [string, string][]) : []),
];

const spread = (values: number[]) => `${fmt(percentile(values, 50))} / ${fmt(percentile(values, 95))}`;

/** The browser's launch, where the process started one before it answered. */
function launched(list: ColdRun[]): string {
  const values = list.map((r) => r.browserLaunched).filter((v): v is number => v !== undefined);
  return values.length ? `${spread(values)} (${values.length} of ${list.length})` : "–";
}

/** ms from process start, p50 / p95 over the runs. */
function siteTable(runs: Map<string, ColdRun[]>): string[] {
  const lines = [
    "| site, cold process (N each), signed in | → handler ready | → browser launched | → first byte | Node CPU ms | warm: median ms |",
    "|---|---|---|---|---|---|",
  ];
  for (const [label, list] of runs) {
    const warm = list.map((r) => r.warmMs).filter((v): v is number => v !== undefined);
    lines.push(
      `| ${label} (${list.length}) | ${spread(list.map((r) => r.ready))} | ${launched(list)} | ${spread(list.map((r) => r.answered))} | ${spread(list.map((r) => r.cpuMs ?? Number.NaN))} | ${warm.length ? fmt(percentile(warm, 50)) : "–"} |`,
    );
  }
  return lines;
}
