import { QueryCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { monthOf } from "#shared/limits/page-quota.ts";
import { requestItemsKey, requestOfItem } from "#shared/limits/page-shards.ts";
import { expect } from "vitest";
import { tables } from "#shared/definitions/index.ts";
import { localTableName } from "#infra/local/resource-names.ts";
import type { FaultRule } from "#shared/aws/fault-injection.ts";
import type { SweepReport } from "#shared/generation/async/index.ts";
import { type AcceptedJson, hostOf, pollStatus, type StatusAnswer } from "./async-http.ts";
import type { RunningStack } from "./local-stack.ts";
import { scanWorkspaceFiles, stackDocumentClient } from "./stack-clients.ts";
import { pagesUsedNow } from "./limits-stack.ts";
import type { WebhookReceiver } from "./webhook-receiver.ts";

/**
 * Arms named faults in the stack's process (`POST /__local/faults`); `[]` disarms them.
 * Returns how often each rule armed before fired.
 */
export async function armFaults(stack: RunningStack, rules: FaultRule[] | undefined): Promise<number[]> {
  const res = await fetch(`${hostOf(stack)}/__local/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(rules ? { rules } : {}),
  });
  if (res.status !== 200) throw new Error(`faults hook answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { hits: number[] }).hits;
}

/** How often each armed rule fired so far. */
export const faultHits = (stack: RunningStack) => armFaults(stack, undefined);

/** Runs the sweeper once now (`POST /__local/sweep`), as its schedule would. */
export async function sweepNow(stack: RunningStack): Promise<SweepReport> {
  const res = await fetch(`${hostOf(stack)}/__local/sweep`, { method: "POST" });
  if (res.status !== 200) throw new Error(`sweep hook answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as SweepReport;
}

/** A request a fault case accepted (its answer) and how it ended. */
export interface EndedRequest {
  accepted: AcceptedJson;
  ended: StatusAnswer;
}

/** Polls every accepted request to its end. */
export async function endAll(
  stack: RunningStack,
  appKey: string,
  accepted: AcceptedJson[],
  timeoutMs = 90_000,
): Promise<EndedRequest[]> {
  return Promise.all(
    accepted.map(async (a) => ({ accepted: a, ended: await pollStatus(stack, appKey, a.requestId, { timeoutMs }) })),
  );
}

/**
 * The invariant every fault case asserts: every accepted file ends
 * `done` or `failed` with a code, exactly once (never both, never missing); the pages
 * billed to the workspace equal the pages delivered, and on a plan that never stops the
 * pages billed to each request (its own page item) equal its delivered pages; and, with a
 * receiver, every event was delivered exactly once per endpoint path.
 */
export async function expectInvariant(
  stack: RunningStack,
  workspaceId: string,
  requests: EndedRequest[],
  webhooks?: { receiver: WebhookReceiver; paths: string[] },
  /** Pages billed, when read otherwise (after a restart this process's domain clients point at dead emulators). */
  billed?: number,
): Promise<void> {
  let delivered = 0;
  const perRequest = await billedPerRequest(stack, workspaceId);
  for (const { accepted, ended } of requests) {
    const { body } = ended;
    expect(["completed", "failed"], accepted.requestId).toContain(body.status);
    const done = body.files.map((f) => f.fileId);
    const failed = (body.failedFiles ?? []).map((f) => f.fileId);
    for (const f of body.failedFiles ?? []) expect(f.code, `${f.fileId} failed without a code`).toMatch(/^[A-Z_]+$/);
    expect([...done, ...failed].sort(), `${accepted.requestId}: each file answered once`).toEqual(
      accepted.files.map((f) => f.fileId).sort(),
    );
    for (const f of body.files) {
      expect(f.pageCount, `${f.fileId} pages`).toBeGreaterThan(0);
      delivered += f.pageCount!;
    }
    if (perRequest.size)
      expect(perRequest.get(accepted.requestId), `${accepted.requestId}: pages billed = its pages delivered`).toBe(
        body.files.reduce((n, f) => n + f.pageCount!, 0),
      );
  }
  expect(billed ?? (await pagesUsedNow(stack, workspaceId)), "pages billed = pages delivered").toBe(delivered);
  if (!webhooks) return;
  for (const path of webhooks.paths) {
    const seen = webhooks.receiver.at(path).map((w) => `${w.body?.event} ${w.body?.requestId}`);
    expect(seen.length, `${path}: one delivery per event`).toBe(new Set(seen).size);
  }
}

/**
 * The pages billed to each request of this month on its own page item (plans that never stop,
 * shared/limits/page-shards.ts), read with a client of their own (valid after restarts).
 */
export async function billedPerRequest(stack: RunningStack, workspaceId: string): Promise<Map<string, number>> {
  const ddb = stackDocumentClient(stack.dataDir);
  try {
    const out = await ddb.send(
      new QueryCommand({
        TableName: localTableName(tables.usage.id),
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": requestItemsKey(workspaceId, monthOf(new Date())) },
        ConsistentRead: true,
      }),
    );
    return new Map((out.Items ?? []).map((i) => [requestOfItem(String(i.sk)) ?? "", Number(i.pages ?? 0)]));
  } finally {
    ddb.destroy();
  }
}

/** The statuses of a workspace's file records, read with a client of its own (valid after restarts). */
export async function fileStatusesOf(stack: RunningStack, workspaceId: string): Promise<string[]> {
  const ddb = stackDocumentClient(stack.dataDir);
  try {
    const items = await scanWorkspaceFiles(ddb, localTableName(tables.files.id), workspaceId);
    return items.map((i) => String(i.status));
  } finally {
    ddb.destroy();
  }
}

/** The job records of a workspace in a stack's DynamoDB, read with a client of their own (valid after restarts). */
export async function jobsOfWorkspace(
  stack: RunningStack,
  workspaceId: string,
): Promise<{ requestId: string; status: string; enqueuedAt?: string }[]> {
  const ddb = stackDocumentClient(stack.dataDir);
  try {
    const out = await ddb.send(
      new ScanCommand({
        TableName: localTableName(tables.requests.id),
        FilterExpression: "workspaceId = :w AND sk = :job",
        ExpressionAttributeValues: { ":w": workspaceId, ":job": "JOB" },
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? []) as { requestId: string; status: string; enqueuedAt?: string }[];
  } finally {
    ddb.destroy();
  }
}

/** True once the stack's process is gone (polled with signal 0). */
export async function waitForDeath(s: RunningStack, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(s.pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
