import { describe, expect, it } from "vitest";
import { buildSearchMetadata, toDecimalString } from "#shared/render/pdf-postprocess.ts";
import { fixRadicalsInToUnicode } from "#shared/render/to-unicode-fix.ts";

const decode = (encoded: string) => Object.fromEntries(new URLSearchParams(encoded));

describe("buildSearchMetadata (see shared/render/README.md#pdf-post-processing-and-rfparams)", () => {
  it("keeps trimmed strings and finite numbers, skips everything else", () => {
    const encoded = buildSearchMetadata({
      orderId: "  A-1  ",
      empty: "   ",
      total: 1200.5,
      negative: -3,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      flag: true,
      nested: { a: 1 },
      list: ["x"],
      none: null,
    });
    expect(decode(encoded)).toEqual({ orderId: "A-1", total: "1200.5", negative: "-3" });
  });

  it("percent-encodes keys and values so any text round-trips", () => {
    const passthrough = { "顧客 名&=": "山田 & 太郎 = (様) 100%+", "a\nb": "line1\nline2" };
    const encoded = buildSearchMetadata(passthrough);
    expect(encoded).toMatch(/^[A-Za-z0-9%._~=&-]+$/); // one ASCII line, no PDF string escapes needed
    expect(decode(encoded)).toEqual(passthrough);
  });

  it("cuts values beyond 256 characters, counting code points", () => {
    const long = "😀".repeat(300);
    const value = decode(buildSearchMetadata({ long })).long ?? "";
    expect(Array.from(value)).toHaveLength(256);
    expect(value).toBe("😀".repeat(256));
    expect(decode(buildSearchMetadata({ exact: "x".repeat(256) })).exact).toHaveLength(256);
  });

  it("keeps at most 64 indexable keys, in object order", () => {
    const passthrough: Record<string, unknown> = { skipped: {} };
    for (let i = 0; i < 70; i++) passthrough[`k${i}`] = i;
    const keys = Object.keys(decode(buildSearchMetadata(passthrough)));
    expect(keys).toHaveLength(64);
    expect(keys[0]).toBe("k0");
    expect(keys.at(-1)).toBe("k63");
  });

  it("is empty without indexable values", () => {
    expect(buildSearchMetadata(undefined)).toBe("");
    expect(buildSearchMetadata({ a: [], b: "" })).toBe("");
  });
});

describe("toDecimalString", () => {
  it.each([
    [0, "0"],
    [-0, "0"],
    [42, "42"],
    [1200.5, "1200.5"],
    [1e21, "1000000000000000000000"],
    [-1.5e22, "-15000000000000000000000"],
    [1.5e-7, "0.00000015"],
    [0.1 + 0.2, "0.30000000000000004"],
  ])("%s → %s", (n, expected) => {
    expect(toDecimalString(n)).toBe(expected);
  });
});

describe("fixRadicalsInToUnicode", () => {
  const cmap = (body: string) => `begincmap\n${body}\nendcmap\nCMapName currentdict /CMap defineresource pop`;

  it("maps Kangxi radical targets to the ideographs Noto Sans JP draws them with", () => {
    const fixed = fixRadicalsInToUnicode(cmap("3 beginbfchar\n<0001> <0020>\n<18AC> <2F47>\n<1971> <66F8>\nendbfchar"));
    expect(fixed).toContain("<18AC> <65E5>"); // ⽇ → 日
    expect(fixed).toContain("<0001> <0020>");
    expect(fixed).toContain("<1971> <66F8>");
  });

  it("splits a bfrange that covers radicals into bfchar entries", () => {
    const fixed =
      fixRadicalsInToUnicode(cmap("2 beginbfrange\n<0012> <0016> <0031>\n<0100> <0101> <2F00>\nendbfrange")) ?? "";
    expect(fixed).toContain("1 beginbfrange\n<0012> <0016> <0031>\nendbfrange");
    expect(fixed).toContain("2 beginbfchar\n<0100> <4E00>\n<0101> <4E28>\nendbfchar"); // ⼀ ⼁ → 一 丨
  });

  it("leaves maps without radicals alone", () => {
    expect(fixRadicalsInToUnicode(cmap("1 beginbfchar\n<0001> <65E5>\nendbfchar"))).toBeUndefined();
  });
});
