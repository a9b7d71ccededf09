import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCEPT_DEADLINE_SECONDS } from "#shared/generation/async/index.ts";
import { invoiceItems } from "../helpers/async-fixtures.ts";
import { type AcceptedJson, acceptOrFail, getStatus, moveClock, pollStatus, postAsync } from "../helpers/async-http.ts";
import { armFaults, endAll, expectInvariant, jobsOfWorkspace, waitForDeath } from "../helpers/faults.ts";
import { adminUsage, createPlanTenant, type PlanTenant } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, settled, startStack } from "../helpers/local-stack.ts";
import { registerEndpoint, settle } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Faults that kill the whole stack, restarted on the same data
 * dir: a crash between the job write and the render queue send (acceptance), and a crash
 * mid-batch (the third file's settle). Failed renders come back after ≈ 3.6 s; the local
 * sweeper runs every second (PLATEN_SWEEP_SECONDS) instead of every 5 minutes.
 */

const ENV = {
  PLATEN_VISIBILITY_SCALE: "0.005",
  PLATEN_SWEEP_SECONDS: "1",
  PLATEN_WEBHOOK_DELAY_SCALE: "0.01",
  PLATEN_WEBHOOK_TIMEOUT_MS: "1500",
};

let stack: RunningStack;
let dataDir: string;
let tenant: PlanTenant;
let receiver: WebhookReceiver;
let webhookUrl: string;

beforeAll(async () => {
  stack = await startStack({ env: ENV });
  dataDir = stack.dataDir;
  receiver = await startWebhookReceiver();
  // A stopping plan: what a dead acceptance reserved must come back.
  tenant = await createPlanTenant(stack, "Crashes", "free");
  webhookUrl = (await registerEndpoint(tenant.workspaceId, { url: receiver.url("/crash") })).url;
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (dataDir) removeDataDir(dataDir);
});

/** Waits for the killed stack's process to end, then starts it again on the same data dir. */
async function restart(): Promise<void> {
  await stack.kill();
  stack = await startStack({ dataDir, env: ENV });
}

describe("the stack is killed", () => {
  it("between the job write and the render queue send: after the restart the request is not rendered, and the sweeper fails it (GENERATION_INTERRUPTED, pages returned, file.failed sent) within the acceptance deadline", async () => {
    await armFaults(stack, [{ service: "sqs", command: "SendMessageBatchCommand", target: "render", action: "crash" }]);
    const answer = await postAsync(stack, tenant.appKey, "single", {
      designId: tenant.invoiceId,
      version: 1,
      webhookUrl,
      content: invoiceItems(1, "dead")[0],
    }).then(
      (res) => res.status,
      () => "no answer",
    );
    expect(answer).toBe("no answer");
    await restart();
    const [job] = await jobsOfWorkspace(stack, tenant.workspaceId);
    expect(job).toMatchObject({ status: "processing" });
    expect(job!.enqueuedAt).toBeUndefined();
    // Before the deadline nothing happens to it (it is not re-queued on start either).
    await new Promise((r) => setTimeout(r, 2500));
    expect((await getStatus(stack, tenant.appKey, job!.requestId)).body.status).toBe("processing");
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(1);

    await moveClock(stack, (ACCEPT_DEADLINE_SECONDS + 1) * 1000);
    let ended: Awaited<ReturnType<typeof pollStatus>>;
    const started = Date.now();
    try {
      ended = await pollStatus(stack, tenant.appKey, job!.requestId, { timeoutMs: 20_000 });
    } finally {
      await moveClock(stack, 0);
    }
    expect(Date.now() - started, "ended within a few sweeps").toBeLessThan(15_000);
    expect(ended.body.status).toBe("failed");
    expect(ended.body.error?.code).toBe("GENERATION_INTERRUPTED");
    expect(ended.body.failedFiles?.map((f) => f.code)).toEqual(["GENERATION_INTERRUPTED"]);
    await settled(stack);
    expect((await adminUsage(stack, tenant.workspaceId)).pagesUsed).toBe(0);
    const [event] = await receiver.waitFor("/crash", 1);
    expect(event!.body).toMatchObject({
      event: "file.failed",
      requestId: job!.requestId,
      error: { code: "GENERATION_INTERRUPTED" },
    });
    await settle(1500);
    expect(receiver.at("/crash")).toHaveLength(1);
  }, 180_000);

  it("mid-batch (at the third file's settle): after the restart every file ends once and the pages billed equal the pages delivered", async () => {
    const before = receiver.at("/crash").length;
    await armFaults(stack, [
      { service: "dynamodb", command: "UpdateCommand", target: "files", action: "crash", skip: 2 },
    ]);
    const accepted: AcceptedJson = await acceptOrFail(stack, tenant.appKey, "multiple", {
      designId: tenant.invoiceId,
      version: 1,
      webhookUrl,
      contents: invoiceItems(6, "mid"),
    });
    const exited = await waitForDeath(stack, 60_000);
    expect(exited, "the fault killed the stack").toBe(true);
    await restart();
    const ended = await endAll(stack, tenant.appKey, [accepted], 90_000);
    expect(ended[0]!.ended.body.status).toBe("completed");
    await receiver.waitFor("/crash", before + 1, 30_000);
    await settle(1500);
    const billed = (await adminUsage(stack, tenant.workspaceId)).pagesUsed;
    await expectInvariant(stack, tenant.workspaceId, ended, { receiver, paths: ["/crash"] }, billed);
  }, 240_000);
});
