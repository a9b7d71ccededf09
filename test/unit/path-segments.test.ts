import { describe, expect, it } from "vitest";
import { decodePathSegment, pathDecodes } from "#shared/web/path-segments.ts";

describe("path segments (shared/web/path-segments.ts)", () => {
  it("decodes well-formed escapes, UTF-8 included", () => {
    expect(decodePathSegment("r%201")).toBe("r 1");
    expect(decodePathSegment("%E8%AB%8B%E6%B1%82%E6%9B%B8")).toBe("請求書");
    expect(pathDecodes("/public/templates/tpl_1/thumbnail")).toBe(true);
  });

  it("refuses an escape cut short, bytes that are not UTF-8 and a lone surrogate's bytes", () => {
    for (const bad of ["%E0%A4%A", "%E0%A4", "%ED%A0%80", "%FF", "%zz", "50%"]) {
      expect(decodePathSegment(bad)).toBeUndefined();
      expect(pathDecodes(`/public/templates/${bad}/thumbnail`)).toBe(false);
    }
  });
});
