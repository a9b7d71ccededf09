import http from "node:http";
import https from "node:https";
import { performance } from "node:perf_hooks";
import type { AttemptResult } from "./retry-schedule.ts";
import {
  type LookupAll,
  type PinnedTarget,
  pinnedLookup,
  resolvePublicTarget,
  WebhookTargetError,
} from "./target-guard.ts";

/** One POST of a delivery. */
export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Whole-attempt deadline (DNS, connect, TLS, response head): 2xx within it is success. */
  timeoutMs: number;
  /** `config().env`: target-guard rules. */
  env: string;
  /** DNS resolver; tests inject one. */
  lookup?: LookupAll;
}

class DeadlineError extends Error {
  override name = "DeadlineError";
}

/**
 * POSTs a webhook body and reports the status, never throwing. The target is checked and
 * resolved again right now (SSRF rules of target-guard) and the socket is pinned to that
 * address; no agent (no pooled socket from another resolution), no proxy, and redirects
 * are not followed — a 3xx is just a status code.
 */
export async function postWebhook(post: WebhookPost): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const url = new URL(post.url);
    const target = await withDeadline(resolvePublicTarget(url, { env: post.env, lookup: post.lookup }), post.timeoutMs);
    const answer = await sendRequest(url, target, post, Math.max(1, post.timeoutMs - elapsed()));
    return { ...answer, latencyMs: elapsed() };
  } catch (err) {
    return { error: describeError(err, post.timeoutMs), latencyMs: elapsed() };
  }
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof WebhookTargetError) return `target refused: ${err.reason}`;
  if (err instanceof DeadlineError) return `timed out after ${timeoutMs} ms`;
  const { code, message } = err as { code?: string; message?: string };
  return code ? `${code}: ${message ?? ""}`.trim() : (message ?? String(err));
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The request itself; resolves with the response head, then drops the connection. */
function sendRequest(
  url: URL,
  target: PinnedTarget,
  post: WebhookPost,
  remainingMs: number,
): Promise<Pick<AttemptResult, "statusCode" | "retryAfter">> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const req = transport.request(url, {
      method: "POST",
      lookup: pinnedLookup(target.address, target.family),
      agent: false,
      headers: { ...post.headers, "Content-Length": String(Buffer.byteLength(post.body)) },
    });
    const timer = setTimeout(() => req.destroy(new DeadlineError()), remainingMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on("response", (res) => {
      clearTimeout(timer);
      const retryAfter = res.headers["retry-after"];
      // The receiver's body is not needed: do not wait for (or buffer) it.
      res.destroy();
      resolve({ statusCode: res.statusCode ?? 0, ...(typeof retryAfter === "string" && { retryAfter }) });
    });
    req.end(post.body);
  });
}
