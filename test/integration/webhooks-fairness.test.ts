import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoiceItem } from "../helpers/async-fixtures.ts";
import { acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { burst, createPlanTenant } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { registerEndpoint } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Fair webhook delivery across workspaces (shared/webhooks/README.md#fair-delivery-across-workspaces): workspace
 * A has 10 endpoints that accept connections and never answer, and 50 async requests; workspace B's webhook
 * still arrives within 10 s of B's request completing. Receiver time-outs are 1.5 s instead of 15 s and
 * retries 100× faster, so A's load is the same shape in a shorter test.
 *
 * 500 hanging deliveries are still far more than the bound can hide: without the per-workspace cap the
 * dispatcher's 40 attempts in flight (4 batches of 10) would take 500 × 1.5 s / 40 ≈ 19 s on their first
 * attempts alone, and their retries (50 ms, 3 s later) queue again ahead of B's; with the cap A's 5 slots,
 * each held 3 s by a time-out, drain it in over 4 minutes.
 */

const B_BOUND_MS = 10_000;

let stack: RunningStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({
    env: {
      PLATEN_WEBHOOK_TIMEOUT_MS: "1500",
      PLATEN_WEBHOOK_DELAY_SCALE: "0.01",
      PLATEN_VISIBILITY_SCALE: "0.03",
      PLATEN_SWEEP_SECONDS: "86400",
    },
  });
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

describe("one workspace's slow receivers do not delay another's webhooks", () => {
  it("B's webhook arrives within 10 s of its completion while A's 500 deliveries hang", async () => {
    const a = await createPlanTenant(stack, "webhook fairness A", "standard");
    const b = await createPlanTenant(stack, "webhook fairness B", "standard");
    for (let i = 0; i < 10; i++) {
      receiver.answer(`/a-${i}`, () => "hang");
      await registerEndpoint(a.workspaceId, { url: receiver.url(`/a-${i}`) });
    }
    await registerEndpoint(b.workspaceId, { url: receiver.url("/b") });

    const accepted = await burst(50, 8, (i) =>
      acceptOrFail(stack, a.appKey, "single", { designId: a.invoiceId, version: 1, content: invoiceItem(`a-${i}`) }),
    );
    // A's requests complete and their deliveries (50 × 10) fill the webhook queue ahead of B's.
    for (const req of accepted.slice(-5)) await pollStatus(stack, a.appKey, req.requestId, { timeoutMs: 90_000 });
    // A's deliveries have started hanging (its in-flight cap is full); a busy machine gets there more slowly.
    await receiver.waitFor("/a-9", 1, 90_000);

    const bAccepted = await acceptOrFail(stack, b.appKey, "single", {
      designId: b.invoiceId,
      version: 1,
      content: invoiceItem("b"),
    });
    await pollStatus(stack, b.appKey, bAccepted.requestId, { intervalMs: 100, timeoutMs: 60_000 });
    const completedAt = Date.now();
    const [delivered] = await receiver.waitFor("/b", 1, 60_000);
    expect(delivered!.body.requestId).toBe(bAccepted.requestId);
    console.log(`webhooks-fairness: B's webhook ${delivered!.at - completedAt} ms after its completion`);
    expect(delivered!.at - completedAt, "B's webhook after its completion (ms)").toBeLessThan(B_BOUND_MS);
  }, 240_000);
});
