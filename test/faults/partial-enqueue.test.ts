import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFileRecords } from "#shared/generation/store/index.ts";
import { invoiceItems } from "../helpers/async-fixtures.ts";
import { pollStatus, postAsync } from "../helpers/async-http.ts";
import { armFaults, faultHits, jobsOfWorkspace } from "../helpers/faults.ts";
import { createPlanTenant, pagesUsedNow } from "../helpers/limits-stack.ts";
import { type RunningStack, removeDataDir, settled, startStack } from "../helpers/local-stack.ts";
import { registerEndpoint, settle } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * A partly queued async acceptance stays consistent (shared/generation/README.md#reliability): when the second
 * batch of render messages of a 20-file request cannot be sent, every file either renders, is billed and is in
 * the webhook, or none is; and the status and the usage agree with the files.
 */

let stack: RunningStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({ env: { PLATEN_WEBHOOK_DELAY_SCALE: "0.01", PLATEN_WEBHOOK_TIMEOUT_MS: "1500" } });
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

describe("a render batch that fails to send during acceptance", () => {
  it("leaves no file rendered unbilled or without its webhook", async () => {
    const tenant = await createPlanTenant(stack, "Partial enqueue", "standard");
    await registerEndpoint(tenant.workspaceId, { url: receiver.url("/partial") });
    await armFaults(stack, [
      { service: "sqs", command: "SendMessageBatchCommand", target: "render", action: "fail", skip: 1, times: 1 },
    ]);
    let answer: number;
    try {
      const res = await postAsync(stack, tenant.appKey, "multiple", {
        designId: tenant.invoiceId,
        version: 1,
        contents: invoiceItems(20, "partial"),
      });
      answer = res.status;
      await res.text();
      expect(await faultHits(stack)).toEqual([1]);
    } finally {
      await armFaults(stack, []);
    }
    const [job] = await jobsOfWorkspace(stack, tenant.workspaceId);
    expect(job, "the request was recorded").toBeDefined();
    const ended = await pollStatus(stack, tenant.appKey, job!.requestId, { timeoutMs: 90_000 });
    // Whatever was queued has had time to render (a render of the queued batch after the request ended would
    // be the inconsistency this guards against).
    await settle(4_000);
    await settled(stack);

    const records = await listFileRecords(job!.requestId);
    const rendered = records
      .filter((r) => r.status === "done")
      .map((r) => r.fileId)
      .sort();
    const listed = ended.body.files.map((f) => f.fileId).sort();
    const pages = ended.body.files.reduce((sum, f) => sum + (f.pageCount ?? 0), 0);
    expect(listed, "the status lists exactly the rendered files").toEqual(rendered);
    expect(await pagesUsedNow(stack, tenant.workspaceId), "pages billed = pages of the rendered files").toBe(pages);
    for (const r of records) expect(["done", "failed"], `${r.fileId} ended`).toContain(r.status);

    const events = receiver.at("/partial").map((w) => w.body);
    const completedFiles = events
      .filter((e) => e?.event === "file.completed")
      .flatMap((e) => e.files.map((f: { fileId: string }) => f.fileId))
      .sort();
    expect(completedFiles, "the webhook names exactly the rendered files").toEqual(rendered);
    if (rendered.length) {
      expect(answer, "a request that renders was accepted").toBe(202);
      expect(ended.body.status).toBe("completed");
      const failed = (ended.body.failedFiles ?? []).map((f) => f.fileId);
      expect(failed.length + rendered.length).toBe(20);
    } else {
      expect(ended.body.status).toBe("failed");
    }
  }, 150_000);
});
