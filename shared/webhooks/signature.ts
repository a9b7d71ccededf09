import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Name of the HTTP header carrying the signature (`X-Platen-Signature`:
 * shared/webhooks/README.md#headers-and-signature). Header names are case-insensitive and Node lower-cases
 * incoming ones, so receivers on Node read `req.headers[webhookSignatureHeader.toLowerCase()]`.
 */
export const webhookSignatureHeader = "X-Platen-Signature";

/** Default replay window: a signed delivery is accepted for five minutes either side of `t`. */
const defaultToleranceSeconds = 300;

/** Upper bounds that keep parsing cheap for hostile input; real headers are ~150 characters. */
const maxHeaderLength = 4096;
const maxSignatures = 8;

const integerPattern = /^(0|[1-9][0-9]*)$/;
// Lower-case only: the signer never emits upper case, and one canonical spelling keeps parsing strict.
const v1Pattern = /^[0-9a-f]{64}$/;
const keyPattern = /^[a-z][a-z0-9]*$/;

/** Thrown for programmer errors (no secret, bad clock or tolerance value), never for bad input headers. */
export class WebhookSignatureError extends Error {
  override name = "WebhookSignatureError";
}

/** Why {@link verifyWebhookSignature} refused a delivery. */
export type WebhookSignatureFailure = "malformed" | "stale" | "future" | "mismatch";

/** Result of {@link verifyWebhookSignature}; `timestamp` is the verified `t` in unix seconds. */
export type WebhookSignatureResult = { ok: true; timestamp: number } | { ok: false; reason: WebhookSignatureFailure };

/** Options of {@link verifyWebhookSignature}. */
export interface VerifyWebhookSignatureOptions {
  /** Maximum age (and maximum clock skew into the future) of `t`, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Current time in unix seconds; defaults to the system clock. Injected by tests. */
  now?: number;
}

/** HMAC-SHA256 over `"<t>.<raw body>"`; the body is hashed as bytes so no re-encoding can creep in. */
function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer): Buffer {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${timestamp}.`, "utf8");
  // Strings are hashed as UTF-8, i.e. exactly the bytes that go on the wire.
  if (typeof rawBody === "string") hmac.update(rawBody, "utf8");
  else hmac.update(rawBody);
  return hmac.digest();
}

/**
 * Builds the signature header value for one webhook delivery.
 *
 * @param rawBody - The exact request body that will be sent (a string is sent and signed as UTF-8).
 * @param secrets - Signing secrets, current first; during rotation also the previous one, so that
 *   receivers still configured with the old secret keep verifying.
 * @param nowSeconds - Signing time in unix seconds (integer).
 * @returns `t=<unix seconds>,v1=<hex HMAC>[,v1=<hex HMAC with the second secret>]`.
 * @throws {@link WebhookSignatureError} when no secret, more than two secrets, an empty secret or a
 *   non-integer time is given.
 */
export function signWebhookPayload(rawBody: string | Buffer, secrets: string[], nowSeconds: number): string {
  if (secrets.length === 0 || secrets.length > 2) {
    throw new WebhookSignatureError(`expected 1 or 2 secrets (current, previous), got ${secrets.length}`);
  }
  // An empty key makes the HMAC forgeable by anyone, so refuse it rather than sign.
  if (secrets.some((secret) => secret.length === 0)) {
    throw new WebhookSignatureError("webhook signing secrets must not be empty");
  }
  if (!Number.isSafeInteger(nowSeconds) || nowSeconds < 0) {
    throw new WebhookSignatureError(`nowSeconds must be a non-negative integer, got ${nowSeconds}`);
  }
  const signatures = secrets.map((secret) => `v1=${computeSignature(secret, nowSeconds, rawBody).toString("hex")}`);
  return [`t=${nowSeconds}`, ...signatures].join(",");
}

interface ParsedHeader {
  timestamp: number;
  signatures: Buffer[];
}

/** Strict parse: exactly one integer `t`, at least one 64-hex `v1`; unknown schemes are skipped. */
function parseSignatureHeader(header: string): ParsedHeader | undefined {
  if (header.length === 0 || header.length > maxHeaderLength) return undefined;
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const item = part.trim();
    const eq = item.indexOf("=");
    if (eq <= 0) return undefined;
    const key = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (!keyPattern.test(key)) return undefined;
    if (key === "t") {
      if (timestamp !== undefined || !integerPattern.test(value)) return undefined;
      timestamp = Number(value);
      if (!Number.isSafeInteger(timestamp)) return undefined;
    } else if (key === "v1") {
      if (!v1Pattern.test(value) || signatures.length >= maxSignatures) return undefined;
      signatures.push(Buffer.from(value, "hex"));
    }
    // Other schemes (v0, future v2, ...) are ignored so the format can evolve without breaking receivers.
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/**
 * Verifies a webhook signature header against the raw request body. Meant for receivers of
 * Platen webhooks; see `shared/webhooks/README.md` for a complete receiver.
 *
 * Pass the body exactly as received (a Buffer, or a string that is re-encoded as UTF-8) — never a
 * re-serialised parsed JSON object. Every `v1` is compared with `crypto.timingSafeEqual`, and all
 * of them are compared, so timing reveals neither where a mismatch is nor which entry matched.
 *
 * @param rawBody - The raw request body bytes.
 * @param header - The value of the `X-Platen-Signature` header.
 * @param secret - The receiver's signing secret.
 * @param options - `toleranceSeconds` (default 300) and `now` (unix seconds, default: system clock).
 * @returns `{ ok: true, timestamp }` or `{ ok: false, reason }`; it never throws for bad headers or bodies.
 * @throws {@link WebhookSignatureError} only for a negative or non-finite `toleranceSeconds` or `now`.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string,
  secret: string,
  { toleranceSeconds = defaultToleranceSeconds, now }: VerifyWebhookSignatureOptions = {},
): WebhookSignatureResult {
  const current = now ?? Math.floor(Date.now() / 1000);
  // A NaN tolerance or clock would make both time comparisons false and silently disable replay protection.
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0 || !Number.isFinite(current)) {
    throw new WebhookSignatureError(`invalid toleranceSeconds (${toleranceSeconds}) or now (${current})`);
  }
  // The typeof guard covers JavaScript callers passing `req.headers[...]`, which may be undefined or an array.
  const parsed = typeof header === "string" ? parseSignatureHeader(header) : undefined;
  if (!parsed) return { ok: false, reason: "malformed" };
  // Time is checked before the HMAC: cheap to reject replays, and `t` is not secret anyway.
  if (current - parsed.timestamp > toleranceSeconds) return { ok: false, reason: "stale" };
  if (parsed.timestamp - current > toleranceSeconds) return { ok: false, reason: "future" };
  // An empty secret would let anyone forge signatures; treat it as never matching.
  if (secret.length === 0) return { ok: false, reason: "mismatch" };
  const expected = computeSignature(secret, parsed.timestamp, rawBody);
  let matched = false;
  for (const candidate of parsed.signatures) {
    // Both buffers are 32 bytes (the parser enforces 64 hex digits), as timingSafeEqual requires.
    // No early exit, so the position of the matching entry does not show in the timing either.
    matched = timingSafeEqual(candidate, expected) || matched;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: "mismatch" };
}
