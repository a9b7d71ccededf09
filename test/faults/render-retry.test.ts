import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoiceItems } from "../helpers/async-fixtures.ts";
import { acceptOrFail } from "../helpers/async-http.ts";
import { armFaults, endAll, expectInvariant, faultHits } from "../helpers/faults.ts";
import { createPlanTenant, type PlanTenant } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";

/**
 * A render that fails for a transient reason is retried after a short back-off, not after the render
 * queue's visibility time-out (render-queue.ts `retryLater`). The stack keeps the real time-out (720 s)
 * here and the first wait is 2 s, so a retry that waited for the time-out could not end in time.
 * The delays themselves: test/unit/render-retry.test.ts.
 */

let stack: RunningStack;
let tenant: PlanTenant;

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_RENDER_RETRY_SECONDS: "2" } });
  tenant = await createPlanTenant(stack, "Render retry", "standard");
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

describe("a failed render's retry", () => {
  it("comes back after its back-off: two PDF uploads fail, their files render again about 2 s later and every file ends done, billed once", async () => {
    await armFaults(stack, [
      { service: "s3", command: "PutObjectCommand", detail: "files/", action: "fail", times: 2 },
    ]);
    try {
      const startedAt = Date.now();
      const accepted = await acceptOrFail(stack, tenant.appKey, "multiple", {
        designId: tenant.invoiceId,
        version: 1,
        contents: invoiceItems(3, "retry"),
      });
      // Well within the visibility time-out (720 s): only a retry brought forward ends in time.
      const ended = await endAll(stack, tenant.appKey, [accepted], 60_000);
      const tookMs = Date.now() - startedAt;
      expect(await faultHits(stack)).toEqual([2]);
      expect(ended[0]!.ended.body.status).toBe("completed");
      expect(ended[0]!.ended.body.files).toHaveLength(3);
      expect(tookMs, "the failed files waited their back-off").toBeGreaterThanOrEqual(2_000);
      expect(stack.output()).toContain("render failed, will retry");
      expect(stack.output()).not.toContain("render retry not brought forward");
      await expectInvariant(stack, tenant.workspaceId, ended);
    } finally {
      await armFaults(stack, []);
    }
  }, 120_000);
});
