import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { systemClock } from "#shared/clock.ts";
import { listWebhookDeliveries } from "#shared/webhooks/delivery-log.ts";
import { createWebhookEndpoint } from "#shared/webhooks/endpoints.ts";
import type { WebhookEndpointInput } from "#shared/webhooks/endpoint-input.ts";
import type { RunningStack } from "./local-stack.ts";
import { adminCliArgs } from "./local-build.ts";

const repoRoot = resolve(import.meta.dirname, "../..");

/**
 * Stack settings for webhook suites: retries 100× faster (5 s → 50 ms, 5 min → 3 s), a
 * 1.5 s receiver deadline instead of 15 s, and short queue visibility so a message left
 * for later comes back within seconds.
 */
export const webhookStackEnv = {
  PLATEN_WEBHOOK_DELAY_SCALE: "0.01",
  PLATEN_WEBHOOK_TIMEOUT_MS: "1500",
  PLATEN_VISIBILITY_SCALE: "0.03",
};

/** Runs `npm run admin -- …` against the running stack (through its runtime.json). */
export async function admin(
  stack: RunningStack,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, await adminCliArgs(...args), {
      cwd: repoRoot,
      env: { ...process.env, PLATEN_DATA_DIR: stack.dataDir },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** Registers an endpoint straight through the domain (call useStackEmulators first). */
export async function registerEndpoint(
  workspaceId: string,
  input: WebhookEndpointInput,
): Promise<{ id: string; secret: string; url: string }> {
  const { endpoint, secret } = await createWebhookEndpoint(workspaceId, input, { clock: systemClock, env: "local" });
  return { id: endpoint.id, secret, url: endpoint.url };
}

/** Polls an endpoint's delivery log until `done` holds for the newest delivery. */
export async function waitForDelivery(
  endpointId: string,
  done: (d: Awaited<ReturnType<typeof listWebhookDeliveries>>[number]) => boolean,
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [latest] = await listWebhookDeliveries(endpointId, {}, systemClock);
    if (latest && done(latest)) return latest;
    if (Date.now() > deadline) throw new Error(`delivery of ${endpointId} not as expected: ${JSON.stringify(latest)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Lets late (wrong) deliveries arrive before asserting that none came. */
export const settle = (ms = 700) => new Promise((r) => setTimeout(r, ms));
