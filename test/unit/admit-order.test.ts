import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTableInputs } from "#infra/local/create-resources.ts";
import { systemClock } from "#shared/clock.ts";
import { admissionMemory, admit } from "#shared/http/admit.ts";
import { rateLimits } from "#shared/limits/limits-config.ts";
import { checkRateLimit } from "#shared/limits/rate-limiter.ts";
import { dynamoRateWindows } from "#shared/limits/usage-table.ts";
import { createWorkspace, getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { startInProcessDynalite } from "../helpers/in-process-dynalite.ts";

/**
 * admit.ts on dynalite: for a key the process has not admitted before, the caller is known
 * once the key is read (`authenticated`), and the rate-limit write leaves after the work the
 * caller starts then (generate-sync's early path: a cold container's design reads go first).
 */
let dynamo: Awaited<ReturnType<typeof startInProcessDynalite>>;

beforeAll(async () => {
  dynamo = await startInProcessDynalite("platen-admit-");
  for (const input of createTableInputs()) await dynamo.createTable(input);
});

afterAll(() => dynamo.stop());

/** The DynamoDB operations this process sends, in the order they leave. */
function sentOperations(): { ops: string[]; stop(): void } {
  const ops: string[] = [];
  const onStart = (message: unknown) => {
    const target = (message as { request: ClientRequest }).request.getHeader("x-amz-target");
    if (typeof target === "string") ops.push(target.replace("DynamoDB_20120810.", ""));
  };
  subscribe("http.client.request.start", onStart);
  return { ops, stop: () => unsubscribe("http.client.request.start", onStart) };
}

/** One container's memory: what its earlier admissions left. */
const memory = admissionMemory();
const headers = (appKey: string) => (name: string) => (name === "appkey" ? appKey : undefined);
let watching: ReturnType<typeof sentOperations> | undefined;
afterEach(() => watching?.stop());

describe("admitting a key not admitted before (admit.ts)", () => {
  it("knows the caller once the key is read; the rate-limit write leaves after the work started then", async () => {
    const { workspace, appKey } = await createWorkspace({ name: "cold", plan: "standard" }, systemClock);
    watching = sentOperations();
    const admission = admit(headers(appKey), "sync", systemClock, memory);
    expect(admission.knownWorkspaceId).toBeUndefined();
    const early = admission.authenticated!.then((caller) => {
      // What generate-sync starts here: the design reads (a GetItem each).
      expect(watching!.ops).toEqual(["GetItem"]);
      return getWorkspace(caller.workspace.id);
    });
    expect((await admission.principal).workspace.id).toBe(workspace.id);
    expect((await early)?.id).toBe(workspace.id);
    // The key read, the early read, then the rate-limit write.
    expect(watching.ops).toEqual(["GetItem", "GetItem", "UpdateItem"]);

    // The key is remembered: the next request knows its workspace at once, with no `authenticated` step.
    const next = admit(headers(appKey), "sync", systemClock, memory);
    expect(next.knownWorkspaceId).toBe(workspace.id);
    expect(next.authenticated).toBeUndefined();
    await next.principal;
  });

  it("a refused key rejects both promises alike; an over-limit caller is authenticated, then refused 429", async () => {
    const unknown = admit(headers(`plt_${"x".repeat(40)}`), "sync", systemClock, memory);
    await expect(unknown.authenticated).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
    await expect(unknown.principal).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });

    const { workspace, appKey } = await createWorkspace({ name: "busy", plan: "standard" }, systemClock);
    // The window filled by other containers: this process has never admitted the key.
    for (let i = 0; i < rateLimits().sync; i++)
      await checkRateLimit(workspace.id, "sync", { clock: systemClock, windows: dynamoRateWindows });
    const over = admit(headers(appKey), "sync", systemClock, memory);
    expect(over.knownWorkspaceId).toBeUndefined();
    expect((await over.authenticated!).workspace.id).toBe(workspace.id);
    await expect(over.principal).rejects.toMatchObject({ code: "RATE_LIMITED" });
  });
});
