import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COUNT_TAKEOVER_SECONDS } from "#shared/generation/settle/index.ts";
import { ACCEPT_DEADLINE_SECONDS } from "#shared/generation/async/index.ts";
import { invoiceItems } from "../helpers/async-fixtures.ts";
import { acceptOrFail, moveClock } from "../helpers/async-http.ts";
import {
  armFaults,
  endAll,
  expectInvariant,
  faultHits,
  fileStatusesOf,
  sweepNow,
  waitForDeath,
} from "../helpers/faults.ts";
import { adminUsage, createPlanTenant, type PlanTenant } from "../helpers/limits-stack.ts";
import { invoiceWithRows } from "../helpers/limits-http.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";

/**
 * Pages billed = pages delivered, for the month and request by request, on the paths that billed a
 * page twice at 10× load (shared/limits/README.md#billing-reconciliation): a count finished by
 * someone other than its claimer. Documents of several pages (a one-page document is counted by its
 * reservation and has no correction). The sweeper runs only when the test calls it.
 */

const ENV = { PLATEN_VISIBILITY_SCALE: "0.005", PLATEN_SWEEP_SECONDS: "3600" };

let stack: RunningStack;
let dataDir: string;
/** Created before any restart: this process's SDK clients keep the first stack's endpoints. */
const tenants: Record<string, PlanTenant> = {};

beforeAll(async () => {
  stack = await startStack({ env: ENV });
  dataDir = stack.dataDir;
  tenants.standard = await createPlanTenant(stack, "Killed mid-settle standard", "standard");
  tenants.personal = await createPlanTenant(stack, "Killed mid-settle personal", "personal");
  tenants.expiry = await createPlanTenant(stack, "Lease expiry", "standard");
});

afterAll(async () => {
  await stack?.stop();
  if (dataDir) removeDataDir(dataDir);
});

const accept = (tenant: PlanTenant, n: number, prefix: string) =>
  acceptOrFail(stack, tenant.appKey, "multiple", {
    designId: tenant.invoiceId,
    version: 1,
    contents: invoiceItems(n, prefix).map((item) => ({ ...item, params: invoiceWithRows(60) })),
  });

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe("a count finished by someone else than its claimer bills each page once", () => {
  for (const plan of ["standard", "personal"] as const) {
    it(`${plan}: a worker killed mid-settle (pages counted, files not yet final) is finished after the restart, once`, async () => {
      const tenant = tenants[plan]!;
      // The first `counting → done` write (its REMOVE names both fields) kills the process: the
      // pages of the batch's files are counted, none of them is final.
      await armFaults(stack, [
        {
          service: "dynamodb",
          command: "UpdateCommand",
          target: "files",
          detail: "pendingStatus, countingAt",
          action: "crash",
        },
      ]);
      const accepted = await accept(tenant, 3, `killed-${plan}`);
      expect(await waitForDeath(stack, 60_000), "the fault killed the stack").toBe(true);
      await stack.kill();
      stack = await startStack({ dataDir, env: ENV });
      const ended = await endAll(stack, tenant.appKey, [accepted], 90_000);
      expect(ended[0]!.ended.body.files).toHaveLength(3);
      const billed = (await adminUsage(stack, tenant.workspaceId)).pagesUsed;
      await expectInvariant(stack, tenant.workspaceId, ended, undefined, billed);
    }, 240_000);
  }

  it("standard: claims taken over while their claimers still count (their lease expired under them), counted once", async () => {
    const tenant = tenants.expiry!;
    // Every page correction waits 4 s before it is sent: the claimers hold their claims, not yet counted.
    await armFaults(stack, [
      {
        service: "dynamodb",
        command: "UpdateCommand",
        target: "usage",
        detail: "#marker",
        action: "delay",
        delayMs: 4000,
        times: 50,
      },
    ]);
    try {
      const accepted = await accept(tenant, 4, "expiry");
      const claimed = await until(
        async () => (await fileStatusesOf(stack, tenant.workspaceId)).filter((s) => s === "counting").length === 4,
        60_000,
      );
      expect(claimed, "every file claimed").toBe(true);
      // The service's clock jumps past the takeover age: every claim now looks abandoned, and the
      // sweeper takes them over while their claimers' corrections are still on their way.
      await moveClock(stack, (COUNT_TAKEOVER_SECONDS + ACCEPT_DEADLINE_SECONDS + 30) * 1000);
      await sweepNow(stack);
      const ended = await endAll(stack, tenant.appKey, [accepted], 90_000);
      expect(ended[0]!.ended.body.files).toHaveLength(4);
      // Both the claimers' corrections and the sweeper's went out.
      const [hits] = await faultHits(stack);
      expect(hits).toBeGreaterThan(1);
      const billed = (await adminUsage(stack, tenant.workspaceId)).pagesUsed;
      await expectInvariant(stack, tenant.workspaceId, ended, undefined, billed);
    } finally {
      await armFaults(stack, []);
      await moveClock(stack, 0);
    }
  }, 240_000);
});
