import { describe, expect, it } from "vitest";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { MAX_PARAMS_DEPTH, tooDeepPath } from "#shared/generation/requests/index.ts";
import { hashPasscode, verifyPasscode } from "#shared/generation/requests/passcodes.ts";
import { validateGenerationBody } from "#shared/generation/requests/index.ts";
import { compiledBundleKey } from "#shared/render/template.ts";

/** Pure rules of reliability and security hardening, without the stack. */

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

describe("params nesting without recursion", () => {
  it("finds the first value deeper than the limit and its path, at any depth", () => {
    expect(tooDeepPath(nested(3), 3)).toBeUndefined();
    expect(tooDeepPath(nested(4), 3)).toEqual(["a", "a", "a"]);
    expect(tooDeepPath({ ok: [1, [2]], deep: nested(100_000) }, 5)).toEqual(["deep", "a", "a", "a", "a"]);
    expect(tooDeepPath([[[]]], 2)).toEqual(["0", "0"]);
  });

  it("a 5,000-deep body is VALIDATION_FAILED naming the field, not a stack overflow; 64 levels of params pass", () => {
    const body = (params: unknown) => JSON.stringify({ designId: "d", version: 1, content: { fileName: "f", params } });
    const deepText = `{"designId":"d","version":1,"content":{"fileName":"f","params":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}`;
    let error: unknown;
    try {
      validateGenerationBody(deepText, "single");
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PlatenError);
    expect(error).toMatchObject({
      code: "VALIDATION_FAILED",
      details: [{ code: "VALIDATION_FAILED", text: { en: `nests deeper than ${MAX_PARAMS_DEPTH} levels` } }],
    });
    expect((error as PlatenError).details[0]!.field).toMatch(/^params(\.a){64,}$/);
    expect(validateGenerationBody(body(nested(MAX_PARAMS_DEPTH - 1)), "single").contents).toHaveLength(1);
  });
});

describe("passcode hashes", () => {
  it("hash asynchronously with a fresh salt, verify, and still verify hashes of the former N = 2^14 format", async () => {
    const [a, b] = await Promise.all([hashPasscode("Abc123XyZ9"), hashPasscode("Abc123XyZ9")]);
    expect(a).toMatch(/^scrypt-n1024\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPasscode("Abc123XyZ9", a!)).toBe(true);
    expect(await verifyPasscode("Abc123XyZ8", a!)).toBe(false);
    // Written by the former scryptSync(passcode, salt, 32) with Node's defaults.
    const { scryptSync } = await import("node:crypto");
    const salt = Buffer.from("0123456789abcdef");
    const former = `scrypt$${salt.toString("base64url")}$${scryptSync("Old0Passcd", salt, 32).toString("base64url")}`;
    expect(await verifyPasscode("Old0Passcd", former)).toBe(true);
    expect(await verifyPasscode("Old0Passcd", "md5$x$y")).toBe(false);
  });

  it("100 hashes never hold the event loop: a timer keeps firing while they run", async () => {
    let ticks = 0;
    let longest = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      ticks += 1;
      longest = Math.max(longest, Date.now() - last);
      last = Date.now();
    }, 5);
    try {
      await Promise.all(Array.from({ length: 100 }, (_, i) => hashPasscode(`pass${i}`)));
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
    expect(longest).toBeLessThan(250);
  });
});

describe("smaller items", () => {
  it("compiled templates are cached per workspace", () => {
    const design = { designId: "same", version: 3 };
    expect(compiledBundleKey("ws_a", design)).not.toBe(compiledBundleKey("ws_b", design));
  });
});
