import { describe, expect, it } from "vitest";
import { pickLanguage } from "#shared/errors/language.ts";

// README.md#errors: Japanese when the highest-priority Accept-Language tag is `ja` or `ja-*`, else English.
describe("pickLanguage", () => {
  it("answers English when there is no header", () => {
    expect(pickLanguage(undefined)).toBe("en");
    expect(pickLanguage("")).toBe("en");
  });

  it.each(["ja", "ja-JP", "JA", "Ja-jp", " ja ", "ja;q=1", "ja-Hira-JP"])("answers Japanese for %j", (header) => {
    expect(pickLanguage(header)).toBe("ja");
  });

  it.each(["en", "en-US", "fr", "de-DE", "*", "jav", "jpn", "japanese", "xja"])("answers English for %j", (header) => {
    expect(pickLanguage(header)).toBe("en");
  });

  it("uses the highest q value, not the first tag", () => {
    expect(pickLanguage("en-US,ja;q=0.9")).toBe("en");
    expect(pickLanguage("en;q=0.5, ja-JP")).toBe("ja");
    expect(pickLanguage("fr;q=0.2, en;q=0.3, ja;q=0.4")).toBe("ja");
    expect(pickLanguage("ja;q=0.4, en;q=0.41")).toBe("en");
    expect(pickLanguage("de, ja;q=0.9, en;q=0.8")).toBe("en");
  });

  it("never picks a refused (q=0) tag", () => {
    expect(pickLanguage("ja;q=0, en")).toBe("en");
    expect(pickLanguage("ja;q=0")).toBe("en");
    expect(pickLanguage("ja;q=0.000, en;q=0.1")).toBe("en");
  });

  it("keeps header order on ties", () => {
    expect(pickLanguage("en, ja")).toBe("en");
    expect(pickLanguage("ja, en")).toBe("ja");
    expect(pickLanguage("en;q=0.8, ja;q=0.8")).toBe("en");
    expect(pickLanguage("ja-JP;q=0.8, en;q=0.8")).toBe("ja");
  });

  it("tolerates extra parameters and whitespace around q", () => {
    expect(pickLanguage("en;q=0.1, ja ; q=0.9")).toBe("ja");
    expect(pickLanguage("en;level=1;q=0.1, ja;foo=bar")).toBe("ja");
  });

  it.each([
    ",,,",
    ";;;",
    ";q=1",
    "q=1",
    " , ; , ",
    "ja;q=abc",
    "ja;q=",
    "ja;q=-1",
    "ja;q=NaN",
    "ja;q=Infinity",
    "\u0000",
    "日本語",
    "x".repeat(10_000),
  ])("answers English for garbage %j without throwing", (header) => {
    expect(pickLanguage(header)).toBe("en");
  });

  it("skips garbage entries and still honours a valid Japanese tag", () => {
    expect(pickLanguage(",,ja-JP,,")).toBe("ja");
    expect(pickLanguage("en;q=abc, ja;q=0.5")).toBe("ja");
    expect(pickLanguage(";q=1, ja")).toBe("ja");
  });
});
