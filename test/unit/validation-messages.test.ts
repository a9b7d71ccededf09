import { describe, expect, it } from "vitest";
import * as z from "zod";
import { detailMessage } from "#shared/errors/error-body.ts";
import { isPlatenError, type PlatenError } from "#shared/errors/platen-error.ts";
import { validateGenerationBody } from "#shared/generation/requests/index.ts";
import { parseJsonBody } from "#shared/validation/json-body.ts";
import { issueText } from "#shared/validation/zod-messages.ts";

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

function thrown(fn: () => unknown): PlatenError {
  try {
    fn();
  } catch (err) {
    if (isPlatenError(err)) return err;
    throw err;
  }
  throw new Error("expected a PlatenError");
}

describe("parseJsonBody", () => {
  it("returns the parsed value of valid JSON", () => {
    expect(parseJsonBody('{"a":[1,"x"]}')).toEqual({ a: [1, "x"] });
  });

  it.each([
    ["not json", 1, 1],
    ['{"a":}', 1, 6],
    ['{"a":1,}', 1, 8],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3],
    ['{"a":1}  x', 1, 10],
    ['{"a":1', 1, 7],
  ])("says where %j stops being JSON (line %i, column %i)", (raw, line, column) => {
    const err = thrown(() => parseJsonBody(raw));
    expect(err.code).toBe("VALIDATION_FAILED");
    const [detail] = err.details;
    expect(detailMessage(detail!, "en")).toMatch(
      new RegExp(`^the body is not valid JSON \\(line ${line}, column ${column}\\): \\S`),
    );
    expect(detailMessage(detail!, "ja")).toBe(`本文が正しい JSON ではありません（${line} 行 ${column} 列目）`);
  });

  it("never repeats the body in the message (bodies carry params)", () => {
    const err = thrown(() => parseJsonBody('{"name": "Yamada Taro", oops}'));
    expect(JSON.stringify(err.details)).not.toContain("Yamada");
  });

  it.each([["undefined"], ["NaN"], ["Yamada"], ['"Yamada" x']])("never repeats a body V8 quotes whole (%j)", (raw) => {
    const [detail] = thrown(() => parseJsonBody(raw)).details;
    expect(detailMessage(detail!, "en")).toMatch(/^the body is not valid JSON \(line 1, column \d+\): \S/);
    expect(detailMessage(detail!, "en")).not.toContain(raw);
  });

  it.each([[null], [""], ["  \n"]])("calls %j an empty body", (raw) => {
    expect(detailMessage(thrown(() => parseJsonBody(raw)).details[0]!, "en")).toBe(
      "the body is empty: send a JSON object",
    );
  });
});

describe("issueText (zod's locales)", () => {
  const issuesOf = (schema: z.ZodType, value: unknown) => {
    const parsed = schema.safeParse(value, { reportInput: true });
    if (parsed.success) throw new Error("expected issues");
    return parsed.error.issues;
  };

  it("words zod's own issues in English and Japanese", () => {
    const [issue] = issuesOf(z.object({ n: z.number() }), { n: "1" });
    expect(issueText(issue!)).toEqual({
      en: "Invalid input: expected number, received string",
      ja: expect.stringMatching(JAPANESE),
    });
  });

  it("says a missing key is required", () => {
    const [issue] = issuesOf(z.object({ n: z.number() }), {});
    expect(issueText(issue!)).toEqual({ en: "is required", ja: "必須です" });
  });

  it("takes a custom rule's Japanese from its params", () => {
    const schema = z
      .string()
      .superRefine((_v, ctx) => ctx.addIssue({ code: "custom", message: "no", params: { ja: "いいえ" } }));
    expect(issueText(issuesOf(schema, "x")[0]!)).toEqual({ en: "no", ja: "いいえ" });
  });
});

describe("validateGenerationBody messages", () => {
  it("gives every detail of a bad request a Japanese message", () => {
    const raw = JSON.stringify({ designId: "", version: "1", content: { fileName: "a:b", params: [], extra: 1 } });
    const err = thrown(() => validateGenerationBody(raw, "single"));
    expect(err.details.map((d) => d.field)).toEqual([
      "designId",
      "version",
      "content.fileName",
      "params",
      "content.extra",
    ]);
    for (const d of err.details) expect(detailMessage(d, "ja"), d.field).toMatch(JAPANESE);
    for (const d of err.details) expect(detailMessage(d, "en"), d.field).not.toMatch(JAPANESE);
  });

  it("keeps a kind's own code when all issues are of that kind (see README.md#errors)", () => {
    const raw = JSON.stringify({
      designId: "d",
      version: 1,
      contents: [
        { fileName: "a/b", params: {} },
        { fileName: "c*", params: {} },
      ],
    });
    const err = thrown(() => validateGenerationBody(raw, "multiple"));
    expect([err.code, err.details.map((d) => d.field)]).toEqual([
      "FILE_NAME_INVALID",
      ["contents.0.fileName", "contents.1.fileName"],
    ]);
  });
});
