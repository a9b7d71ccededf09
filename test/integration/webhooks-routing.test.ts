import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhookSignature, webhookSignatureHeader } from "#shared/webhooks/signature.ts";
import { admin, registerEndpoint, settle, webhookStackEnv } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { createTenant, publishFolder, sampleDir, type Tenant } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, readErrorBody, syncCaller } from "../helpers/sync-http.ts";

/**
 * Routing (shared/webhooks/README.md#which-endpoints-get-what), payloads (shared/webhooks/README.md#payloads),
 * signatures (shared/webhooks/README.md#signature-format), passcodes and webhookUrl
 * (OpenAPI generateSyncSingle) against the local stack, with a real receiver on loopback. One stack for the
 * file.
 */

let stack: RunningStack;
let receiver: WebhookReceiver;
let tenant: Tenant;
let certificateId: string;
const ep: Record<"all" | "inv" | "cert" | "off", { id: string; secret: string; url: string }> = {} as never;

beforeAll(async () => {
  stack = await startStack({ env: webhookStackEnv });
  receiver = await startWebhookReceiver();
  tenant = await createTenant(stack, "webhook routing");
  certificateId = (await publishFolder(stack, tenant.workspaceId, sampleDir("certificate-en"))).id;
  ep.all = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/all") });
  ep.inv = await registerEndpoint(tenant.workspaceId, {
    url: receiver.url("/inv"),
    designFilterType: "selected",
    targetDesignIds: [tenant.invoiceId],
  });
  ep.cert = await registerEndpoint(tenant.workspaceId, {
    url: receiver.url("/cert"),
    targetDesignIds: [certificateId],
  });
  ep.off = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/off"), enabled: false });
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

const sync = () => syncCaller(stack, tenant.appKey);
const postAsync = (mode: "single" | "multiple", body: unknown) =>
  api(stack, tenant.appKey)(`/file/async/${mode}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const counts = () => Object.fromEntries(["/all", "/inv", "/cert", "/off"].map((p) => [p, receiver.at(p).length]));

describe("file.completed routing without webhookUrl (see shared/webhooks/README.md#which-endpoints-get-what)", () => {
  it("reaches every enabled endpoint whose filter matches, signed with its own secret, passcode in the first delivery only", async () => {
    const content = {
      fileName: "請求書 A-1",
      passcodeEnabled: true,
      shareType: "03",
      passthrough: { orderId: "PO-77", amount: 1200 },
      params: {},
    };
    const res = await sync()("single", { designId: tenant.invoiceId, version: 1, content });
    expect(res.status).toBe(200);
    const mapping = decodeFileMapping(res.headers.get("x-file-mapping"));
    expect(mapping[0]!.share.passcode).toBeTruthy();
    const [all] = await receiver.waitFor("/all", 1);
    const [inv] = await receiver.waitFor("/inv", 1);
    await settle();
    expect(counts()).toEqual({ "/all": 1, "/inv": 1, "/cert": 0, "/off": 0 });
    for (const [hit, secret] of [
      [all!, ep.all.secret],
      [inv!, ep.inv.secret],
    ] as const) {
      expect(hit.headers["content-type"]).toBe("application/json");
      expect(hit.headers["user-agent"]).toBe("Platen-Webhooks/1.0");
      expect(hit.headers["x-platen-event"]).toBe("file.completed");
      expect(hit.headers["x-platen-delivery"]).toBe(hit.body.deliveryId);
      const signature = String(hit.headers[webhookSignatureHeader.toLowerCase()]);
      expect(verifyWebhookSignature(hit.rawBody, signature, secret)).toMatchObject({ ok: true });
      expect(Object.keys(hit.body).sort()).toEqual([
        "deliveryId",
        "designId",
        "event",
        "files",
        "requestId",
        "timestamp",
        "version",
        "workspaceId",
      ]);
      expect(hit.body).toMatchObject({
        event: "file.completed",
        workspaceId: tenant.workspaceId,
        requestId: res.headers.get("request-id"),
        designId: tenant.invoiceId,
        version: 1,
      });
      // The same file entries as X-File-Mapping, passcode included (right after generation).
      expect(hit.body.files).toEqual(mapping);
    }
    expect(verifyWebhookSignature(all!.rawBody, String(all!.headers["x-platen-signature"]), ep.inv.secret)).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(all!.body.deliveryId).not.toBe(inv!.body.deliveryId);

    // A manual redelivery: same delivery id, signed afresh, rebuilt without the passcode.
    const out = await admin(stack, "webhook", "redeliver", all!.body.deliveryId, "--json");
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ deliveryId: all!.body.deliveryId, attempt: 2 });
    const again = (await receiver.waitFor("/all", 2))[1]!;
    expect(again.body.deliveryId).toBe(all!.body.deliveryId);
    expect(again.body.files[0].share).toEqual({
      shareType: "public",
      url: mapping[0]!.share.url,
      passcodeEnabled: true,
    });
    expect(
      verifyWebhookSignature(again.rawBody, String(again.headers["x-platen-signature"]), ep.all.secret),
    ).toMatchObject({ ok: true });
  });
});

describe("webhookUrl (OpenAPI generateSyncSingle, shared/webhooks/README.md#which-endpoints-get-what)", () => {
  it("sends only to the named endpoint, even when its design filter would not match", async () => {
    const before = counts();
    const contents = [
      { fileName: "one", params: {} },
      { fileName: "two", params: {} },
    ];
    const res = await sync()("multiple", { designId: tenant.invoiceId, version: 1, webhookUrl: ep.cert.url, contents });
    expect(res.status).toBe(200);
    const [hit] = await receiver.waitFor("/cert", 1);
    expect(hit!.body.files.map((f: { fileName: string }) => f.fileName)).toEqual(["one", "two"]);
    await settle();
    expect(counts()).toEqual({ ...before, "/cert": 1 });
  });

  it("refuses an unregistered URL, a disabled endpoint's URL and another workspace's endpoint with WEBHOOK_URL_NOT_ALLOWED", async () => {
    const other = await createTenant(stack, "webhook other");
    const foreign = await registerEndpoint(other.workspaceId, { url: receiver.url("/foreign") });
    for (const webhookUrl of [receiver.url("/nobody"), ep.off.url, foreign.url, `${ep.all.url}/`]) {
      const body = { designId: tenant.invoiceId, version: 1, webhookUrl, content: { fileName: "x", params: {} } };
      for (const res of [await sync()("single", body), await postAsync("single", body)]) {
        expect(res.status, webhookUrl).toBe(400);
        expect((await readErrorBody(res)).code).toBe("WEBHOOK_URL_NOT_ALLOWED");
      }
    }
  });

  it("async partial failure: file.completed for the successes and file.failed with PARTIAL_FAILURE, only to webhookUrl", async () => {
    const before = counts();
    const contents = [
      { fileName: "ok-1", passcodeEnabled: true, passthrough: { row: 1 }, params: {} },
      { fileName: "bad", passthrough: { row: 2 }, params: { 請求先: 42 } },
      { fileName: "ok-2", params: {} },
    ];
    const res = await postAsync("multiple", {
      designId: tenant.invoiceId,
      version: 1,
      webhookUrl: ep.inv.url,
      contents,
    });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as {
      requestId: string;
      files: { fileId: string; share: { passcode?: string } }[];
    };
    expect(accepted.files[0]!.share.passcode).toBeTruthy(); // shown once, in the 202 body
    const hits = (await receiver.waitFor("/inv", before["/inv"]! + 2, 30_000)).slice(before["/inv"]);
    const completed = hits.find((h) => h.body.event === "file.completed")!;
    const failed = hits.find((h) => h.body.event === "file.failed")!;
    expect(failed.headers["x-platen-event"]).toBe("file.failed");
    expect(completed.body.files.map((f: { fileId: string }) => f.fileId)).toEqual([
      accepted.files[0]!.fileId,
      accepted.files[2]!.fileId,
    ]);
    // Async passcodes are not kept in clear, so webhooks say passcodeEnabled without the passcode.
    expect(completed.body.files[0].share).toMatchObject({ passcodeEnabled: true });
    expect(completed.body.files[0].share).not.toHaveProperty("passcode");
    expect(failed.body).toMatchObject({
      requestId: accepted.requestId,
      error: { code: "PARTIAL_FAILURE", message: expect.any(String) },
    });
    expect(failed.body.files).toEqual([
      {
        fileId: accepted.files[1]!.fileId,
        fileName: "bad",
        passthrough: { row: 2 },
        code: "PARAMS_TYPE_MISMATCH",
        message: expect.stringContaining("請求先"),
      },
    ]);
    expect(
      verifyWebhookSignature(failed.rawBody, String(failed.headers["x-platen-signature"]), ep.inv.secret),
    ).toMatchObject({ ok: true });
    await settle();
    expect(counts()).toEqual({ ...before, "/inv": before["/inv"]! + 2 });
  });

  it("without webhookUrl a partial failure sends file.completed to the matching endpoints and no file.failed", async () => {
    const before = counts();
    const contents = [
      { fileName: "fine", params: {} },
      { fileName: "broken", params: { 請求先: 42 } },
    ];
    const res = await postAsync("multiple", { designId: tenant.invoiceId, version: 1, contents });
    expect(res.status).toBe(202);
    const [all] = (await receiver.waitFor("/all", before["/all"]! + 1, 30_000)).slice(before["/all"]);
    const [inv] = (await receiver.waitFor("/inv", before["/inv"]! + 1)).slice(before["/inv"]);
    await settle(1000);
    expect(counts()).toEqual({ ...before, "/all": before["/all"]! + 1, "/inv": before["/inv"]! + 1 });
    for (const hit of [all!, inv!]) {
      expect(hit.body.event).toBe("file.completed");
      expect(hit.body.files.map((f: { fileName: string }) => f.fileName)).toEqual(["fine"]);
    }
  });
});

describe("endpoint registry", () => {
  it("allows 10 endpoints per workspace, exactly, even when creations race (see shared/limits/README.md#service-limits)", async () => {
    const fresh = await createTenant(stack, "webhook limit");
    const racing = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => registerEndpoint(fresh.workspaceId, { url: receiver.url(`/limit/${i}`) })),
    );
    expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(10);
    const out = await admin(
      stack,
      "webhook",
      "create",
      "--workspace",
      fresh.workspaceId,
      "--url",
      receiver.url("/limit/x"),
      "--json",
    );
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split("\n")).toEqual([expect.stringMatching(/at most 10 webhook endpoints/)]);
    const list = JSON.parse(
      (await admin(stack, "webhook", "list", "--workspace", fresh.workspaceId, "--json")).stdout,
    ) as { id: string }[];
    expect(list).toHaveLength(10);
    expect((await admin(stack, "webhook", "delete", list[0]!.id, "--workspace", fresh.workspaceId)).code).toBe(0);
    const created = await admin(
      stack,
      "webhook",
      "create",
      "--workspace",
      fresh.workspaceId,
      "--url",
      receiver.url("/limit/x"),
      "--design",
      "D1",
      "--design",
      "D2",
      "--json",
    );
    expect(created.code, created.stderr).toBe(0);
    const json = JSON.parse(created.stdout);
    expect(Object.keys(json).sort()).toEqual(["designFilterType", "enabled", "id", "secret", "targetDesignIds", "url"]);
    expect(json).toMatchObject({
      enabled: true,
      designFilterType: "selected",
      targetDesignIds: ["D1", "D2"],
      secret: expect.stringMatching(/^whsec_.{43}$/),
    });
  });

  it("refuses bad input with exit 1 and one line: non-https, credentials, a duplicate URL, a bad flag", async () => {
    for (const args of [
      ["create", "--workspace", tenant.workspaceId, "--url", "http://example.com/hook"],
      ["create", "--workspace", tenant.workspaceId, "--url", "https://user:pw@example.com/hook"],
      ["create", "--workspace", tenant.workspaceId, "--url", "https://10.0.0.1/hook"],
      ["create", "--workspace", tenant.workspaceId, "--url", ep.all.url],
      ["update", ep.all.id, "--workspace", tenant.workspaceId, "--enabled", "maybe"],
      ["update", "NoSuchEndpoint00", "--workspace", tenant.workspaceId, "--enabled", "true"],
    ]) {
      const out = await admin(stack, "webhook", ...args);
      expect(out.code, args.join(" ")).toBe(1);
      expect(out.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
    }
  });
});
