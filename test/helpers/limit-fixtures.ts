import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { hostOf } from "./async-http.ts";
import type { RunningStack } from "./local-stack.ts";
import type { TestDesignSource } from "./sync-fixtures.ts";
import { adminCliArgs } from "./local-build.ts";

const repoRoot = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** `n` blocks that each end their page: 50,000 of them take Chromium minutes to paginate. */
export const pageBreakDesign: TestDesignSource = {
  label: "TEST page breaks",
  parameters: [{ name: "n", type: "number", label: "Pages" }],
  template: '{% for i in (1..n) %}<div class="pg">{{ i }}</div>{% endfor %}',
  css: ".pg { break-after: page; }",
  sampleParams: { n: 50_000 },
};

/** `n` copies of `chunk`: 100,000 × 1,000 characters is 100 MB of HTML. */
export const floodDesign: TestDesignSource = {
  label: "TEST HTML flood",
  parameters: [
    { name: "n", type: "number", label: "Copies" },
    { name: "chunk", type: "text", label: "Chunk" },
  ],
  template: "{% for i in (1..n) %}<p>{{ chunk }}</p>{% endfor %}",
};

export const floodParams = { n: 100_000, chunk: "x".repeat(1_000) };

/** One health check answered: its status and how long it took. */
export interface HealthSample {
  status: number;
  ms: number;
}

/**
 * Calls GET /v1/health/check every `everyMs` until stopped: the service must keep answering
 * while a hostile document renders. Returns the samples (a network error is status 0).
 */
export function watchHealth(stack: RunningStack, everyMs = 250): { stop(): Promise<HealthSample[]> } {
  const samples: HealthSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const status = await fetch(`${hostOf(stack)}/v1/health/check`)
        .then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        })
        .catch(() => 0);
      samples.push({ status, ms: Math.round(performance.now() - started) });
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** `npm run admin -- design publish DIR --workspace ID`, as an operator runs it: exit code and output. */
export async function adminPublish(
  stack: RunningStack,
  dir: string,
  workspaceId: string,
): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      await adminCliArgs("design", "publish", dir, "--workspace", workspaceId),
      {
        cwd: repoRoot,
        env: { ...process.env, PLATEN_DATA_DIR: stack.dataDir },
      },
    );
    return { ok: true, output: stdout + stderr };
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    return { ok: false, output: stdout + stderr };
  }
}
