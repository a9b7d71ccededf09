import type { Clock } from "#shared/clock.ts";
import { logger } from "#shared/observability/logger.ts";
import { recordWebhookAttempt } from "#shared/observability/metrics.ts";
import type { DispatchLeaseStore } from "./dispatch-leases.ts";
import {
  type AttemptLogEntry,
  claimAttempt,
  type DeliveryRecord,
  type DeliveryRef,
  getDelivery,
  markScheduled,
  recordAttempt,
} from "./delivery-store.ts";
import { activeSigningSecrets } from "./endpoint-input.ts";
import { getEndpointRecord, type WebhookEndpoint } from "./endpoint-store.ts";
import { disableWebhookEndpoint } from "./endpoints.ts";
import { buildWebhookPayload, type PayloadFile } from "./payload.ts";
import { type AttemptDecision, type AttemptResult, decideAfterAttempt } from "./retry-schedule.ts";
import { postWebhook, type WebhookPost } from "./send-webhook.ts";
import { signWebhookPayload, webhookSignatureHeader } from "./signature.ts";
import { type DispatchMessage, sendDispatchMessages, sendToDeadLetter } from "./webhook-queue.ts";
import type { WebhookSettings } from "./webhook-settings.ts";

/** Dependencies of {@link dispatchDelivery}. */
export interface DispatchDeps {
  /** Real time: signatures are checked against the receiver's clock, SQS delays are real. */
  clock: Clock;
  /** `config().env` (target-guard rules). */
  env: string;
  siteUrl: string;
  settings: WebhookSettings;
  /** The request's file records, read when the payload is built (generation's file store). */
  listFiles: (requestId: string) => Promise<PayloadFile[]>;
  random?: () => number;
  post?: (post: WebhookPost) => Promise<AttemptResult>;
  /**
   * The per-workspace in-flight cap (dispatch-leases.ts); without it every attempt runs at once (unit tests).
   * `refused`: workspaces found at their cap in this batch, whose other messages are deferred without a read.
   */
  fairness?: { leases: DispatchLeaseStore; refused: Set<string> };
}

/** `done`: the message can go; `deferred`: re-queued for later; `busy`: another copy is mid-attempt, retry the message later. */
export type DispatchOutcome = "done" | "deferred" | "busy";

/** `User-Agent` of every delivery, so receivers and their firewalls can recognise Platen. */
export const WEBHOOK_USER_AGENT = "Platen-Webhooks/1.0";
/** Claims outlive the receiver deadline by this much (file read, signing, log write). */
const LEASE_MARGIN_MS = 20_000;

const refOf = (m: DispatchMessage): DeliveryRef => ({
  deliveryId: m.deliveryId,
  endpointId: m.endpointId,
  createdAt: m.createdAt,
});

/**
 * Makes attempt `msg.attempt` of one delivery, at most once: the conditional claim on the
 * delivery item turns duplicate queue messages into no-ops (or into "busy" while the first
 * copy is still posting). Then: build the payload from the file records, sign it afresh,
 * POST it, log the attempt, and schedule the next attempt, dead-letter, or disable the
 * endpoint (410) as {@link decideAfterAttempt} says.
 */
export async function dispatchDelivery(msg: DispatchMessage, deps: DispatchDeps): Promise<DispatchOutcome> {
  if (await deferIfEarly(msg, deps)) return "deferred";
  const slot = await takeSlot(msg, deps);
  if (slot === "full") {
    // The workspace has its cap of attempts in flight: this one waits its turn in the queue, behind nobody
    // else's deliveries (a new message, so its receive count does not grow).
    const delayMs = 1000 + Math.floor((deps.random ?? Math.random)() * 1000);
    await sendDispatchMessages(
      [{ ...msg, notBefore: deps.clock.now().getTime() + delayMs }],
      deps.clock.now().getTime(),
    );
    return "deferred";
  }
  let timedOut = false;
  try {
    const outcome = await claimAndPost(msg, deps);
    timedOut = outcome.timedOut;
    return outcome.outcome;
  } finally {
    // A receiver that timed out keeps its workspace's slot for one more deadline: slow receivers cost their
    // own workspace, never the dispatcher's other workspaces.
    if (slot) await slot.release(timedOut ? deps.clock.now().getTime() + deps.settings.timeoutMs : undefined);
  }
}

/** A slot of the message's workspace, "full" at its cap, or undefined when fairness does not apply. */
async function takeSlot(
  msg: DispatchMessage,
  deps: DispatchDeps,
): Promise<"full" | { release(keepUntilMs?: number): Promise<void> } | undefined> {
  const { fairness } = deps;
  const workspaceId = msg.workspaceId;
  if (!fairness || !workspaceId) return undefined;
  if (fairness.refused.has(workspaceId)) return "full";
  const token = `${msg.deliveryId}#${msg.attempt}`;
  const nowMs = deps.clock.now().getTime();
  const until = nowMs + deps.settings.timeoutMs + LEASE_MARGIN_MS;
  if (!(await fairness.leases.take(workspaceId, token, until, nowMs, deps.settings.workspaceInFlight))) {
    fairness.refused.add(workspaceId);
    return "full";
  }
  return { release: (keepUntilMs) => fairness.leases.end(workspaceId, token, keepUntilMs) };
}

async function claimAndPost(
  msg: DispatchMessage,
  deps: DispatchDeps,
): Promise<{ outcome: DispatchOutcome; timedOut: boolean }> {
  const ref = refOf(msg);
  const claimed = await claimAttempt(ref, msg.attempt, deps.settings.timeoutMs + LEASE_MARGIN_MS, deps.clock.now());
  if (!claimed) return { outcome: await settleUnclaimed(msg, deps), timedOut: false };
  const endpoint = await getEndpointRecord(claimed.workspaceId, claimed.endpointId);
  if (!endpoint?.enabled) {
    await recordSkipped(claimed, msg, endpoint, deps.clock);
    return { outcome: "done", timedOut: false };
  }
  const startedAt = deps.clock.now();
  const result = await attemptPost(claimed, endpoint, msg, deps);
  const manual = claimed.manualAttempt === msg.attempt;
  const decision = decideAfterAttempt(result, msg.attempt, manual, {
    scale: deps.settings.delayScale,
    random: deps.random,
    now: deps.clock.now(),
  });
  const entry = logEntry(msg.attempt, manual, endpoint.url, startedAt, result, decision);
  logAttempt(claimed, entry);
  await finishAttempt(claimed, msg, entry, decision, deps);
  return { outcome: "done", timedOut: result.statusCode === undefined && !!result.error?.startsWith("timed out") };
}

/**
 * SQS delays stop at 15 minutes: a message that arrives before its `notBefore` is sent
 * again with the remaining delay (the chain), or, under a second short, simply awaited.
 */
async function deferIfEarly(msg: DispatchMessage, deps: DispatchDeps): Promise<boolean> {
  const wait = (msg.notBefore ?? 0) - deps.clock.now().getTime();
  if (wait <= 0) return false;
  if (wait < 1000) {
    await new Promise((r) => setTimeout(r, wait));
    return false;
  }
  await sendDispatchMessages([msg], deps.clock.now().getTime());
  return true;
}

/**
 * A message whose attempt could not be claimed: a duplicate of a finished attempt (drop
 * it — but if the next attempt's message was never sent because an invocation died right
 * after logging, send it now), a copy of an attempt in flight (busy), or stale.
 */
async function settleUnclaimed(msg: DispatchMessage, deps: DispatchDeps): Promise<DispatchOutcome> {
  const current = await getDelivery(refOf(msg));
  if (current?.status !== "pending") return "done";
  if (current.attemptsDone === msg.attempt - 1 && current.claimedAttempt === msg.attempt) return "busy";
  if (current.attemptsDone === msg.attempt && (current.scheduledAttempt ?? 0) <= msg.attempt) {
    const notBefore = current.nextAttemptAt ? Date.parse(current.nextAttemptAt) : deps.clock.now().getTime();
    await scheduleNext(msg, notBefore, deps.clock);
  }
  return "done";
}

async function scheduleNext(msg: DispatchMessage, notBefore: number, clock: Clock): Promise<void> {
  const next: DispatchMessage = {
    ...refOf(msg),
    ...(msg.workspaceId && { workspaceId: msg.workspaceId }),
    attempt: msg.attempt + 1,
    notBefore,
    ...(msg.passcodes && { passcodes: msg.passcodes }),
  };
  await sendDispatchMessages([next], clock.now().getTime());
  await markScheduled(refOf(msg), next.attempt);
}

/** Builds, signs (current secret, plus the previous one during a rotation) and POSTs. */
async function attemptPost(
  delivery: DeliveryRecord,
  endpoint: WebhookEndpoint,
  msg: DispatchMessage,
  deps: DispatchDeps,
): Promise<AttemptResult> {
  const files = await deps.listFiles(delivery.requestId);
  const body = JSON.stringify(buildWebhookPayload(delivery, files, deps.siteUrl, msg.passcodes));
  const now = deps.clock.now();
  const signature = signWebhookPayload(body, activeSigningSecrets(endpoint, now), Math.floor(now.getTime() / 1000));
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": WEBHOOK_USER_AGENT,
    "X-Platen-Delivery": delivery.deliveryId,
    "X-Platen-Event": delivery.event,
    [webhookSignatureHeader]: signature,
  };
  return (deps.post ?? postWebhook)({
    url: endpoint.url,
    body,
    headers,
    timeoutMs: deps.settings.timeoutMs,
    env: deps.env,
  });
}

function logEntry(
  attempt: number,
  manual: boolean,
  url: string,
  startedAt: Date,
  result: AttemptResult,
  decision: AttemptDecision,
): AttemptLogEntry {
  return {
    attempt,
    ...(manual && { manual }),
    url,
    startedAt: startedAt.toISOString(),
    latencyMs: result.latencyMs,
    ...(result.statusCode !== undefined && { statusCode: result.statusCode }),
    ...(result.error !== undefined && { error: result.error }),
    ...(result.error === undefined && decision.outcome !== "delivered" && { error: `HTTP ${result.statusCode}` }),
    outcome: decision.outcome,
  };
}

/** Logs the attempt, then acts on the decision (the log first: it is what a replay trusts). */
async function finishAttempt(
  delivery: DeliveryRecord,
  msg: DispatchMessage,
  entry: AttemptLogEntry,
  decision: AttemptDecision,
  deps: DispatchDeps,
): Promise<void> {
  const now = deps.clock.now();
  const notBefore = decision.outcome === "retry" ? now.getTime() + decision.delayMs : undefined;
  const status = decision.outcome === "retry" ? "pending" : decision.outcome;
  const nextAttemptAt = notBefore === undefined ? undefined : new Date(notBefore).toISOString();
  // A lost claim means this attempt outlived its lease and another invocation took over.
  if (!(await recordAttempt(refOf(msg), msg.attempt, { status, entry, nextAttemptAt }, now))) return;
  if (notBefore !== undefined) await scheduleNext(msg, notBefore, deps.clock);
  if (decision.outcome !== "failed") return;
  if (decision.deadLetter)
    await sendToDeadLetter(msg, `retry schedule exhausted after attempt ${msg.attempt}: ${entry.error}`);
  if (decision.disableEndpoint) {
    await disableWebhookEndpoint(
      delivery.workspaceId,
      delivery.endpointId,
      `receiver answered 410 Gone (delivery ${delivery.deliveryId})`,
      deps.clock,
    );
  }
}

/** Nothing is sent to a disabled or deleted endpoint; the delivery ends as failed. */
async function recordSkipped(
  delivery: DeliveryRecord,
  msg: DispatchMessage,
  endpoint: WebhookEndpoint | undefined,
  clock: Clock,
): Promise<void> {
  const now = clock.now();
  const entry: AttemptLogEntry = {
    attempt: msg.attempt,
    url: endpoint?.url ?? "",
    startedAt: now.toISOString(),
    latencyMs: 0,
    error: endpoint ? "endpoint is disabled; nothing sent" : "endpoint was deleted; nothing sent",
    outcome: "skipped",
  };
  logAttempt(delivery, entry);
  await recordAttempt(refOf(msg), msg.attempt, { status: "failed", entry }, now);
}

/** One line and one metric per attempt; the URL without its query or credentials (they may hold a receiver's token). */
function logAttempt(delivery: DeliveryRecord, entry: AttemptLogEntry): void {
  const { requestId, workspaceId, deliveryId, endpointId, event } = delivery;
  const line = { requestId, workspaceId, deliveryId, endpointId, event, ...entry, url: redactedUrl(entry.url) };
  if (entry.outcome === "delivered") logger.info("webhook attempt", line);
  else logger.warn("webhook attempt", line);
  recordWebhookAttempt(entry.outcome);
}

function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "";
  }
}
