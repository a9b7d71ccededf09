import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "#shared/clock.ts";
import { createDelivery } from "#shared/webhooks/delivery-store.ts";
import { deleteWebhookEndpoint } from "#shared/webhooks/endpoints.ts";
import { deliveryIdOf, enqueueWebhookDeliveries } from "#shared/webhooks/enqueue-deliveries.ts";
import { verifyWebhookSignature } from "#shared/webhooks/signature.ts";
import { sendDispatchMessages } from "#shared/webhooks/webhook-queue.ts";
import { type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, readErrorBody, syncCaller } from "../helpers/sync-http.ts";
import { admin, registerEndpoint, settle, waitForDelivery, webhookStackEnv } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * The dispatcher against real receivers on loopback: retries, redirects, 410, the receiver
 * deadline, isolation between endpoints, duplicate queue messages and secret rotation.
 * Each test uses its own workspace so endpoints never see each other's events.
 */

let stack: RunningStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({ env: webhookStackEnv });
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** A sync single of the invoice in `tenant`; returns the response. */
async function generate(tenant: Tenant, extra: Record<string, unknown> = {}): Promise<Response> {
  const res = await syncCaller(stack, tenant.appKey)("single", {
    designId: tenant.invoiceId,
    version: 1,
    content: { fileName: "inv", params: {} },
    ...extra,
  });
  return res;
}

const signatureOk = (hit: { rawBody: Buffer; headers: Record<string, unknown> }, secret: string) =>
  verifyWebhookSignature(hit.rawBody, String(hit.headers["x-platen-signature"]), secret).ok;

describe("retries", () => {
  it("retries after a 500 with the same delivery id and a fresh signature, then logs the success", async () => {
    const tenant = await createTenant(stack, "retry");
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/flaky") });
    receiver.answer("/flaky", (n) => ({ status: n === 1 ? 500 : 200 }));
    expect((await generate(tenant)).status).toBe(200);
    const [first, second] = await receiver.waitFor("/flaky", 2);
    expect(second!.body.deliveryId).toBe(first!.body.deliveryId);
    expect(second!.headers["x-platen-delivery"]).toBe(first!.body.deliveryId);
    expect(second!.rawBody.equals(first!.rawBody)).toBe(true);
    expect(signatureOk(first!, endpoint.secret) && signatureOk(second!, endpoint.secret)).toBe(true);
    const out = await admin(
      stack,
      "webhook",
      "deliveries",
      "--endpoint",
      endpoint.id,
      "--workspace",
      tenant.workspaceId,
      "--json",
    );
    expect(out.code, out.stderr).toBe(0);
    const [log] = JSON.parse(out.stdout);
    expect(log).toMatchObject({ deliveryId: first!.body.deliveryId, status: "delivered", event: "file.completed" });
    expect(log.attempts.map((a: { statusCode: number; outcome: string }) => [a.statusCode, a.outcome])).toEqual([
      [500, "retry"],
      [200, "delivered"],
    ]);
    expect(log.attempts[0]).toMatchObject({
      attempt: 1,
      latencyMs: expect.any(Number),
      startedAt: expect.any(String),
      error: "HTTP 500",
    });
    await settle();
    expect(receiver.at("/flaky")).toHaveLength(2);
  });

  it("never follows a redirect: a 302 is a failed attempt and its Location is never requested", async () => {
    const tenant = await createTenant(stack, "redirect");
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/moved") });
    receiver.answer("/moved", () => ({ status: 302, headers: { location: receiver.url("/landing") } }));
    await generate(tenant);
    const log = await waitForDelivery(endpoint.id, (d) => d.attempts.length >= 2);
    expect(log.attempts[0]).toMatchObject({ statusCode: 302, outcome: "retry" });
    await deleteWebhookEndpoint(tenant.workspaceId, endpoint.id); // ends the retries
    await settle();
    expect(receiver.at("/landing")).toHaveLength(0);
  });

  it("disables the endpoint on 410 Gone: no retry, and its URL is no longer accepted as webhookUrl", async () => {
    const tenant = await createTenant(stack, "gone");
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/gone") });
    receiver.answer("/gone", () => ({ status: 410 }));
    await generate(tenant, { webhookUrl: endpoint.url });
    const log = await waitForDelivery(endpoint.id, (d) => d.status === "failed");
    expect(log.attempts).toEqual([expect.objectContaining({ statusCode: 410, outcome: "failed" })]);
    const [listed] = JSON.parse(
      (await admin(stack, "webhook", "list", "--workspace", tenant.workspaceId, "--json")).stdout,
    );
    expect(listed).toMatchObject({ id: endpoint.id, enabled: false, disabledReason: expect.stringContaining("410") });
    expect((await readErrorBody(await generate(tenant, { webhookUrl: endpoint.url }))).code).toBe(
      "WEBHOOK_URL_NOT_ALLOWED",
    );
    await generate(tenant);
    await settle();
    expect(receiver.at("/gone")).toHaveLength(1);
  });
});

describe("isolation between endpoints", () => {
  it("cuts a receiver that does not answer at the deadline while another endpoint is served at once", async () => {
    const tenant = await createTenant(stack, "slow and fast");
    const slow = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/slow") });
    await registerEndpoint(tenant.workspaceId, { url: receiver.url("/fast") });
    receiver.answer("/slow", () => "hang");
    const started = Date.now();
    expect((await generate(tenant)).status).toBe(200);
    const [fast] = await receiver.waitFor("/fast", 1);
    const [hanging] = await receiver.waitFor("/slow", 1);
    // Sent side by side: /fast is not queued behind the 1.5 s deadline of /slow.
    expect(Math.abs(fast!.at - hanging!.at)).toBeLessThan(1000);
    const log = await waitForDelivery(slow.id, (d) => d.attempts.length >= 1);
    expect(log.attempts[0]).toMatchObject({ outcome: "retry", error: "timed out after 1500 ms" });
    expect(log.attempts[0]!.statusCode).toBeUndefined();
    expect(log.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(1400);
    expect(log.attempts[0]!.latencyMs).toBeLessThan(3000);
    expect(hanging!.at).toBeGreaterThanOrEqual(started);
    await deleteWebhookEndpoint(tenant.workspaceId, slow.id);
  });
});

describe("at most one POST per delivery attempt", () => {
  it("turns duplicate queue messages (during and after the attempt) and a replayed enqueue into no-ops", async () => {
    const tenant = await createTenant(stack, "duplicates");
    const res = await generate(tenant); // before any endpoint exists: nothing is queued for it
    const requestId = res.headers.get("request-id")!;
    const fileIds = decodeFileMapping(res.headers.get("x-file-mapping")).map((f) => f.fileId);
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/dup") });
    receiver.answer("/dup", () => ({ status: 200, delayMs: 400 }));
    const event = {
      event: "file.completed" as const,
      workspaceId: tenant.workspaceId,
      requestId,
      designId: tenant.invoiceId,
      version: 1,
      fileIds,
      timestamp: new Date().toISOString(),
    };
    expect(await enqueueWebhookDeliveries(event)).toBe(1);
    const copy = {
      deliveryId: deliveryIdOf(requestId, "file.completed", endpoint.id),
      endpointId: endpoint.id,
      createdAt: event.timestamp,
      attempt: 1,
    };
    await sendDispatchMessages([copy, copy, copy]);
    const [hit] = await receiver.waitFor("/dup", 1);
    expect(hit!.body).toMatchObject({ deliveryId: copy.deliveryId, requestId, files: [{ fileId: fileIds[0] }] });
    await waitForDelivery(endpoint.id, (d) => d.status === "delivered");
    await sendDispatchMessages([copy]); // after the attempt finished
    expect(await enqueueWebhookDeliveries(event)).toBe(0);
    await settle(6500); // copies that found the attempt in flight come back after the visibility time-out
    expect(receiver.at("/dup")).toHaveLength(1);
    const log = await waitForDelivery(endpoint.id, (d) => d.status === "delivered");
    expect(log.attempts).toHaveLength(1);
  });
});

describe("waits longer than SQS can delay", () => {
  it("re-queues a message that arrives before it is due and POSTs only once it is due", async () => {
    const tenant = await createTenant(stack, "chained delay");
    const res = await generate(tenant);
    const requestId = res.headers.get("request-id")!;
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/later") });
    const createdAt = new Date().toISOString();
    const deliveryId = deliveryIdOf(requestId, "file.completed", endpoint.id);
    const fileIds = decodeFileMapping(res.headers.get("x-file-mapping")).map((f) => f.fileId);
    const event = {
      event: "file.completed" as const,
      timestamp: createdAt,
      workspaceId: tenant.workspaceId,
      requestId,
      designId: tenant.invoiceId,
      version: 1,
      fileIds,
    };
    await createDelivery({
      ...event,
      deliveryId,
      endpointId: endpoint.id,
      status: "pending",
      attemptsDone: 0,
      attempts: [],
      createdAt,
      updatedAt: createdAt,
      expiresAt: 2e9,
    });
    const notBefore = Date.now() + 2600;
    // Sent without a delay on purpose: the dispatcher must notice it is early and chain it.
    await sendDispatchMessages([{ deliveryId, endpointId: endpoint.id, createdAt, attempt: 1, notBefore }], notBefore);
    const [hit] = await receiver.waitFor("/later", 1);
    expect(hit!.at).toBeGreaterThanOrEqual(notBefore - 50);
    expect(hit!.body.deliveryId).toBe(deliveryId);
  });
});

describe("secret rotation", () => {
  const rotate = async (tenant: { workspaceId: string }, endpointId: string, ...extra: string[]) => {
    const out = await admin(
      stack,
      "webhook",
      "rotate-secret",
      endpointId,
      "--workspace",
      tenant.workspaceId,
      ...extra,
      "--json",
    );
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as { secret: string; previousSecretExpiresAt?: string };
  };

  it("by default the new secret alone signs, in the one-value signature form; the old one stops at once", async () => {
    const tenant = await createTenant(stack, "rotation");
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/rotated") });
    const rotated = await rotate(tenant, endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.previousSecretExpiresAt).toBeUndefined();
    await generate(tenant);
    const [hit] = await receiver.waitFor("/rotated", 1);
    expect(String(hit!.headers["x-platen-signature"])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(signatureOk(hit!, rotated.secret)).toBe(true);
    expect(signatureOk(hit!, endpoint.secret)).toBe(false);
  });

  it("with --previous-secret-hours the old secret signs beside the new one (two v1 values) until then", async () => {
    const tenant = await createTenant(stack, "rotation overlap");
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/overlap") });
    const rotated = await rotate(tenant, endpoint.id, "--previous-secret-hours", "24");
    expect(Date.parse(rotated.previousSecretExpiresAt!) - systemClock.now().getTime()).toBeGreaterThan(
      23 * 3600 * 1000,
    );
    await generate(tenant);
    const [hit] = await receiver.waitFor("/overlap", 1);
    expect(String(hit!.headers["x-platen-signature"]).match(/v1=/g)).toHaveLength(2);
    expect(signatureOk(hit!, rotated.secret)).toBe(true);
    expect(signatureOk(hit!, endpoint.secret)).toBe(true);
    expect(signatureOk(hit!, "whsec_someone_else")).toBe(false);
    const refused = await admin(
      stack,
      "webhook",
      "rotate-secret",
      endpoint.id,
      "--workspace",
      tenant.workspaceId,
      "--previous-secret-hours",
      "100",
    );
    expect([refused.code, refused.stderr.trim().split("\n").length]).toEqual([1, 1]);
  });
});
