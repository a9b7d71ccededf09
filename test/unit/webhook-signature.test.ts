import * as crypto from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WebhookSignatureResult } from "#shared/webhooks/signature.ts";
import { signWebhookPayload, verifyWebhookSignature, WebhookSignatureError } from "#shared/webhooks/signature.ts";

// Wrap timingSafeEqual (keeping its behaviour) so the tests can prove the comparison goes through it.
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

interface Vectors {
  secret: string;
  previousSecret: string;
  body: string;
  bodyUtf8Base64: string;
  t: number;
  toleranceSeconds: number;
  signing: { name: string; secrets: string[]; t: number; header: string }[];
  verifying: {
    name: string;
    header: string;
    now: number;
    body?: string;
    secret?: string;
    expected: WebhookSignatureResult;
  }[];
}

// Read rather than imported so the vectors stay plain data shared with other languages' receivers.
const vectors = JSON.parse(
  readFileSync(new URL("../vectors/webhook-signature.json", import.meta.url), "utf8"),
) as Vectors;
const bodyBytes = Buffer.from(vectors.bodyUtf8Base64, "base64");
const timingSafeEqual = vi.mocked(crypto.timingSafeEqual);
/** Header of the first signing vector: valid for `vectors.body`, `vectors.secret` at `vectors.t`. */
const goodHeader = vectors.signing[0]?.header ?? "";

afterEach(() => {
  timingSafeEqual.mockClear();
});

describe("test vectors", () => {
  it("carry a non-ASCII body whose UTF-8 bytes match the pinned base64", () => {
    // More UTF-8 bytes than UTF-16 code units means at least one non-ASCII character.
    expect(Buffer.byteLength(vectors.body, "utf8")).toBeGreaterThan(vectors.body.length);
    expect(Buffer.from(vectors.body, "utf8").equals(bodyBytes)).toBe(true);
  });
});

describe("signWebhookPayload", () => {
  it.each(vectors.signing)("$name: string body", ({ secrets, t, header }) => {
    expect(signWebhookPayload(vectors.body, secrets, t)).toBe(header);
  });

  it.each(vectors.signing)("$name: Buffer body", ({ secrets, t, header }) => {
    expect(signWebhookPayload(bodyBytes, secrets, t)).toBe(header);
  });

  it("produces headers its own verifier accepts", () => {
    const header = signWebhookPayload("{}", ["s3cret"], 1_000);
    expect(verifyWebhookSignature("{}", header, "s3cret", { now: 1_000 })).toEqual({ ok: true, timestamp: 1_000 });
  });

  it.each([
    ["no secret", [], 1],
    ["three secrets", ["a", "b", "c"], 1],
    ["an empty secret", ["current", ""], 1],
    ["a fractional time", ["a"], 1.5],
    ["a negative time", ["a"], -1],
    ["NaN as time", ["a"], Number.NaN],
  ])("refuses %s", (_label, secrets, now) => {
    expect(() => signWebhookPayload("{}", secrets, now)).toThrow(WebhookSignatureError);
  });

  it("names its error class", () => {
    expect(() => signWebhookPayload("{}", [], 1)).toThrow(expect.objectContaining({ name: "WebhookSignatureError" }));
  });
});

describe("verifyWebhookSignature", () => {
  it.each(vectors.verifying)("$name (string body)", ({ header, now, body, secret, expected }) => {
    const result = verifyWebhookSignature(body ?? vectors.body, header, secret ?? vectors.secret, {
      now,
      toleranceSeconds: vectors.toleranceSeconds,
    });
    expect(result).toEqual(expected);
  });

  it.each(vectors.verifying)("$name (Buffer body)", ({ header, now, body, secret, expected }) => {
    const raw = body === undefined ? bodyBytes : Buffer.from(body, "utf8");
    expect(verifyWebhookSignature(raw, header, secret ?? vectors.secret, { now })).toEqual(expected);
  });

  it("hashes raw bytes: the same text in another encoding does not verify", () => {
    const latin1 = Buffer.from(vectors.body, "latin1");
    expect(verifyWebhookSignature(latin1, goodHeader, vectors.secret, { now: vectors.t })).toEqual({
      ok: false,
      reason: "mismatch",
    });
  });

  it("honours a custom tolerance", () => {
    const header = signWebhookPayload("{}", ["s"], 1_000);
    expect(verifyWebhookSignature("{}", header, "s", { now: 1_011, toleranceSeconds: 10 })).toEqual({
      ok: false,
      reason: "stale",
    });
    expect(verifyWebhookSignature("{}", header, "s", { now: 989, toleranceSeconds: 10 })).toEqual({
      ok: false,
      reason: "future",
    });
  });

  it("defaults `now` to the system clock", () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const header = signWebhookPayload("{}", ["s"], nowSeconds);
    expect(verifyWebhookSignature("{}", header, "s")).toEqual({ ok: true, timestamp: nowSeconds });
    const old = signWebhookPayload("{}", ["s"], nowSeconds - 3_600);
    expect(verifyWebhookSignature("{}", old, "s")).toEqual({ ok: false, reason: "stale" });
  });

  it("treats a non-string header (e.g. a missing or repeated HTTP header) as malformed", () => {
    expect(verifyWebhookSignature("{}", undefined as unknown as string, "s")).toEqual({
      ok: false,
      reason: "malformed",
    });
    expect(verifyWebhookSignature("{}", ["t=1"] as unknown as string, "s")).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses an oversized header without parsing it", () => {
    const header = `t=${vectors.t},${"v0=x,".repeat(1_000)}v1=${"0".repeat(64)}`;
    expect(verifyWebhookSignature("{}", header, "s", { now: vectors.t })).toEqual({ ok: false, reason: "malformed" });
  });

  it("never matches with an empty secret", () => {
    const header = `t=${vectors.t},v1=${crypto.createHmac("sha256", "").update(`${vectors.t}.{}`).digest("hex")}`;
    expect(verifyWebhookSignature("{}", header, "", { now: vectors.t })).toEqual({ ok: false, reason: "mismatch" });
  });

  it.each([
    ["NaN tolerance", { toleranceSeconds: Number.NaN }],
    ["negative tolerance", { toleranceSeconds: -1 }],
    ["NaN now", { now: Number.NaN }],
  ])("throws on %s instead of silently disabling the replay window", (_label, options) => {
    expect(() => verifyWebhookSignature(vectors.body, goodHeader, vectors.secret, options)).toThrow(
      WebhookSignatureError,
    );
  });
});

describe("constant-time comparison", () => {
  const goodHex = goodHeader.slice(goodHeader.indexOf("v1=") + 3);
  const flipAt = (index: number): string => {
    const flipped = goodHex[index] === "0" ? "1" : "0";
    return `t=${vectors.t},v1=${goodHex.slice(0, index)}${flipped}${goodHex.slice(index + 1)}`;
  };
  const verify = (header: string) => verifyWebhookSignature(vectors.body, header, vectors.secret, { now: vectors.t });

  it("compares full 32-byte buffers with timingSafeEqual wherever the mismatch is", () => {
    for (const index of [0, 31, 63]) {
      timingSafeEqual.mockClear();
      expect(verify(flipAt(index))).toEqual({ ok: false, reason: "mismatch" });
      expect(timingSafeEqual).toHaveBeenCalledTimes(1);
      const [a, b] = timingSafeEqual.mock.calls[0] ?? [];
      expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
    }
  });

  it("takes the verdict from timingSafeEqual, not from a short-circuiting comparison", () => {
    timingSafeEqual.mockReturnValueOnce(true);
    expect(verify(flipAt(0))).toEqual({ ok: true, timestamp: vectors.t });
    timingSafeEqual.mockReturnValueOnce(false);
    expect(verify(goodHeader)).toEqual({ ok: false, reason: "mismatch" });
  });

  it("compares every v1 even after a match, so timing does not reveal which one matched", () => {
    const flipped = flipAt(5);
    const other = flipped.slice(flipped.indexOf("v1=") + 3);
    expect(verify(`t=${vectors.t},v1=${goodHex},v1=${other},v1=${other}`)).toEqual({ ok: true, timestamp: vectors.t });
    expect(timingSafeEqual).toHaveBeenCalledTimes(3);
  });

  it("does not reach the comparison for malformed, stale or future headers", () => {
    verify("");
    verifyWebhookSignature(vectors.body, goodHeader, vectors.secret, { now: vectors.t + 301 });
    verifyWebhookSignature(vectors.body, goodHeader, vectors.secret, { now: vectors.t - 301 });
    expect(timingSafeEqual).not.toHaveBeenCalled();
  });
});
