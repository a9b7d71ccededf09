import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readWebhookSecret } from "#shared/webhooks/endpoints.ts";
import { armFaults } from "../helpers/faults.ts";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { makePublicClient, makeUser, manage, userToken, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { admin } from "../helpers/webhook-fixtures.ts";

/**
 * Management changes under concurrency and under a failing audit write, over HTTP: one live application key per
 * workspace whatever the interleaving of rotations, a one-time secret never lost to a failed audit write, and one
 * webhook endpoint per URL per workspace whatever the interleaving of creates and updates.
 */

let stack: SharedStack;
let call: ReturnType<typeof manage>;
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  call = manage(stack);
  tenant = await createTenant(stack, "management races");
  const client = await makePublicClient(tenant.workspaceId, "Races");
  const user = await makeUser({ [tenant.workspaceId]: "admin" });
  token = await userToken(stack, client, user, tenant.workspaceId);
});

afterAll(() => stack?.release());

const rotatePath = () => `/workspace/${tenant.workspaceId}/application-token/regenerate`;
const endpoints = () => `/workspace/${tenant.workspaceId}/webhook-endpoints`;
const designs = (appKey: string) => api(stack, appKey)("/file/designs");
const auditActions = async () => {
  const out = await admin(stack, "audit", "list", "--workspace", tenant.workspaceId, "--json");
  return (JSON.parse(out.stdout) as { action: string; target?: string }[]).map((e) => e.action);
};

describe("application-key rotation", () => {
  it("20 concurrent rotations leave exactly one live key: the current one", async () => {
    for (let round = 0; round < 3; round++) {
      // The first key item written waits, and the rotations start 20 ms apart: later rotations read the row
      // while an earlier one is between its steps (the interleaving that used to leave a second key alive).
      await armFaults(stack, [
        { service: "dynamodb", command: "PutCommand", detail: "KEY#", action: "delay", delayMs: 300 },
      ]);
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          await new Promise((r) => setTimeout(r, i * 20));
          return call("POST", rotatePath(), { token });
        }),
      );
      await armFaults(stack, []);
      for (const a of answers) expect([200, 409]).toContain(a.status);
      const keys = answers
        .filter((a) => a.status === 200)
        .map((a) => a.body as { applicationKey: string; lastRotatedAt: string });
      expect(keys.length).toBeGreaterThanOrEqual(1);
      const statuses = await Promise.all(keys.map(async (k) => (await designs(k.applicationKey)).status));
      // Exactly one works, and it is the rotation the workspace row names (the last one to count).
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(keys.length - 1);
      const live = keys[statuses.indexOf(200)]!;
      const shown = await admin(stack, "workspace", "show", tenant.workspaceId, "--json");
      expect(JSON.parse(shown.stdout).lastRotatedAt).toBe(live.lastRotatedAt);
      expect((await designs(tenant.appKey)).status).toBe(401);
      tenant.appKey = live.applicationKey;
    }
  });

  it("a failed audit write changes nothing: 500, the old key still works, no audit entry", async () => {
    const before = await auditActions();
    await armFaults(stack, [{ service: "dynamodb", command: "PutCommand", detail: "AUDIT#", action: "fail" }]);
    try {
      const failed = await call("POST", rotatePath(), { token });
      expect(failed.status).toBe(500);
    } finally {
      await armFaults(stack, []);
    }
    expect((await designs(tenant.appKey)).status).toBe(200);
    expect(await auditActions()).toEqual(before);
    const ok = await call("POST", rotatePath(), { token });
    expect(ok.status).toBe(200);
    expect((await designs(ok.body.applicationKey)).status).toBe(200);
    expect((await designs(tenant.appKey)).status).toBe(401);
    tenant.appKey = ok.body.applicationKey;
    expect((await auditActions())[0]).toBe("application-key.rotate");
  });
});

describe("webhook secret regeneration", () => {
  it("a failed audit write changes nothing: 500 and the endpoint keeps its secret", async () => {
    const created = await call("POST", endpoints(), { token }, { url: "https://hooks.example.com/audit-fault" });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const secretBefore = created.body.secret as string;
    await armFaults(stack, [{ service: "dynamodb", command: "PutCommand", detail: "AUDIT#", action: "fail" }]);
    try {
      expect((await call("POST", `${endpoints()}/${id}/secret/regenerate`, { token })).status).toBe(500);
    } finally {
      await armFaults(stack, []);
    }
    expect((await readWebhookSecret(tenant.workspaceId, id)).secret).toBe(secretBefore);
    const again = await call("POST", `${endpoints()}/${id}/secret/regenerate`, { token });
    expect(again.status).toBe(200);
    expect(again.body.secret).not.toBe(secretBefore);
  });
});

describe("webhook endpoint URLs", () => {
  it("10 concurrent creates of one URL: exactly one 201, the others the duplicate error", async () => {
    const url = "https://hooks.example.com/same-url";
    const answers = await Promise.all(Array.from({ length: 10 }, () => call("POST", endpoints(), { token }, { url })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ code: "VALIDATION_FAILED", details: [{ field: "url" }] });
    }
    const listed = await call("GET", endpoints(), { token });
    const all = listed.body.items as { url: string; id: string }[];
    expect(all.filter((e) => e.url === url)).toHaveLength(1);
    await Promise.all(all.map((e) => call("DELETE", `${endpoints()}/${e.id}`, { token })));
  });

  it("concurrent updates to one URL: exactly one succeeds; an update to a taken URL is refused; a freed URL is free", async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const out = await call("POST", endpoints(), { token }, { url: `https://hooks.example.com/u${n}` });
      expect(out.status).toBe(201);
      ids.push(out.body.id as string);
    }
    const target = "https://hooks.example.com/contested";
    const answers = await Promise.all(
      ids.map((id) => call("PATCH", `${endpoints()}/${id}`, { token }, { url: target })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.body).toMatchObject({ code: "VALIDATION_FAILED", details: [{ field: "url" }] });
    }
    // A create racing with the updates for the same URL is refused as well.
    expect((await call("POST", endpoints(), { token }, { url: target })).status).toBe(400);
    const listed = await call("GET", endpoints(), { token });
    const all = listed.body.items as { url: string; id: string }[];
    expect(all.filter((e) => e.url === target)).toHaveLength(1);
    // The winner's old URL was released: another endpoint may take it.
    const winner = ids[answers.findIndex((a) => a.status === 200)]!;
    const winnerOld = `https://hooks.example.com/u${ids.indexOf(winner) + 1}`;
    const loser = ids.find((id) => id !== winner)!;
    expect((await call("PATCH", `${endpoints()}/${loser}`, { token }, { url: winnerOld })).status).toBe(200);
    // And a deleted endpoint's URL can be registered again.
    expect((await call("DELETE", `${endpoints()}/${winner}`, { token })).status).toBe(204);
    expect((await call("POST", endpoints(), { token }, { url: target })).status).toBe(201);
  });
});
