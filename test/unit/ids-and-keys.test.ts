import { describe, expect, it } from "vitest";
import { generateAppKey, hashAppKey, isWellFormedAppKey, randomSecret } from "#shared/workspaces/app-key.ts";
import { isId, newId } from "#shared/ids.ts";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

describe("newId", () => {
  const ids = Array.from({ length: 10_000 }, () => newId());

  it("makes 16 base62 characters that isId accepts", () => {
    for (const id of ids) {
      expect(id).toMatch(/^[0-9A-Za-z]{16}$/);
      expect(isId(id)).toBe(true);
    }
  });

  it("never repeats in 10,000 ids", () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses every character of the alphabet, roughly uniformly", () => {
    const counts = new Map<string, number>([...ALPHABET].map((c) => [c, 0]));
    for (const id of ids) for (const c of id) counts.set(c, counts.get(c)! + 1);
    expect(counts.size).toBe(62);
    for (const [c, n] of counts) expect(n, `character ${c}`).toBeGreaterThan(0);

    // Pearson's chi-square with 61 degrees of freedom: mean 61, sd ≈ 11. 160 is ~9 sd out,
    // so this never flakes, yet a modulo bias (e.g. `byte % 62` over all 256 values, which
    // makes the first 8 characters 25% likelier) lands far above it.
    const total = ids.length * 16;
    const expected = total / 62;
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(160);
  });

  it("honours an explicit length", () => {
    expect(newId(1)).toMatch(/^[0-9A-Za-z]$/);
    expect(newId(40)).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(newId(200)).toHaveLength(200);
  });
});

describe("isId", () => {
  it.each([
    "",
    "abc",
    "0123456789abcde", // 15
    "0123456789abcdefg", // 17
    "0123456789abcde-",
    "0123456789abcde_",
    "0123456789abcde ",
    " 0123456789abcdef",
    "0123456789abcdé1",
    "0123456789abcdef\n",
  ])("rejects %j", (value) => {
    expect(isId(value)).toBe(false);
  });

  it("accepts 16 alphanumerics of either case", () => {
    expect(isId("0123456789abcdef")).toBe(true);
    expect(isId("ABCDEFGHIJKLMNOP")).toBe(true);
  });
});

describe("application keys", () => {
  it("generates well-formed, distinct keys", () => {
    const keys = Array.from({ length: 1000 }, () => generateAppKey());
    for (const key of keys) {
      expect(key).toMatch(/^plt_[0-9A-Za-z]{40}$/);
      expect(isWellFormedAppKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("hashes to 64 lowercase hex characters, the same every time", () => {
    const key = generateAppKey();
    const hash = hashAppKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashAppKey(key)).toBe(hash);
    expect(hash).not.toContain(key.slice(4));
  });

  it("is plain SHA-256 of the UTF-8 key (known vector)", () => {
    expect(hashAppKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("gives different hashes for different keys, even one character apart", () => {
    const key = generateAppKey();
    const last = key.at(-1) === "a" ? "b" : "a";
    const neighbour = `${key.slice(0, -1)}${last}`;
    expect(hashAppKey(neighbour)).not.toBe(hashAppKey(key));
    const hashes = new Set(Array.from({ length: 500 }, () => hashAppKey(generateAppKey())));
    expect(hashes.size).toBe(500);
  });

  const good = `plt_${"a".repeat(40)}`;
  it.each([
    ["empty", ""],
    ["prefix only", "plt_"],
    ["39 characters", `plt_${"a".repeat(39)}`],
    ["41 characters", `plt_${"a".repeat(41)}`],
    ["upper-case prefix", `PLT_${"a".repeat(40)}`],
    ["dash instead of underscore", `plt-${"a".repeat(40)}`],
    ["no prefix", "a".repeat(44)],
    ["other prefix", `pk_${"a".repeat(41)}`],
    ["underscore in the body", `plt_${"a".repeat(39)}_`],
    ["dash in the body", `plt_${"a".repeat(39)}-`],
    ["leading space", ` ${good}`],
    ["trailing space", `${good} `],
    ["trailing newline", `${good}\n`],
    ["non-ASCII letter", `plt_${"a".repeat(39)}é`],
    ["Bearer-style value", `Bearer ${good}`],
    ["base64 padding", `plt_${"a".repeat(38)}==`],
  ])("rejects a malformed key: %s", (_label, value) => {
    expect(isWellFormedAppKey(value)).toBe(false);
  });

  it("accepts a hand-written key of the right shape", () => {
    expect(isWellFormedAppKey(good)).toBe(true);
    expect(isWellFormedAppKey(`plt_${"Z9".repeat(20)}`)).toBe(true);
  });
});

describe("randomSecret", () => {
  it("is base64url of the requested number of bytes and never repeats", () => {
    const a = randomSecret();
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/); // 24 bytes → 32 chars
    expect(Buffer.from(a, "base64url")).toHaveLength(24);
    expect(randomSecret(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(Array.from({ length: 1000 }, () => randomSecret())).size).toBe(1000);
  });
});
