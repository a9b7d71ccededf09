import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { expect } from "vitest";
import { tables } from "#shared/definitions/index.ts";
import { localTableName } from "#infra/local/resource-names.ts";
import type { FaultRule } from "#shared/aws/fault-injection.ts";
import type { SweepReport } from "#shared/generation/sweep.ts";
import { type AcceptedJson, hostOf, pollStatus, type StatusAnswer } from "./async-http.ts";
import type { RunningStack } from "./local-stack.ts";
import { stackDocumentClient } from "./stack-clients.ts";
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
 * billed to the workspace equal the pages delivered; and, with a receiver, every event
 * was delivered exactly once per endpoint path.
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
  }
  expect(billed ?? (await pagesUsedNow(stack, workspaceId)), "pages billed = pages delivered").toBe(delivered);
  if (!webhooks) return;
  for (const path of webhooks.paths) {
    const seen = webhooks.receiver.at(path).map((w) => `${w.body?.event} ${w.body?.requestId}`);
    expect(seen.length, `${path}: one delivery per event`).toBe(new Set(seen).size);
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
