import { describe, expect, it } from "vitest";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { MAX_PARAMS_BYTES } from "#shared/generation/requests/params-shape.ts";
import { MAX_CONTENTS, MAX_PASSTHROUGH_BYTES, MAX_WEBHOOK_URL } from "#shared/generation/requests/request-schema.ts";
import { validateGenerationBody } from "#shared/generation/requests/index.ts";

/**
 * Request validation (OpenAPI generateSyncSingle and the other generation operations; README.md#errors) as a
 * function: the codes and fields the sync and async routes answer. The wire shape (status, message array,
 * docsUrl, Accept-Language) stays with the integration tests (sync-errors.test.ts).
 */

const single = (content: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ designId: "invoice", version: 1, content, ...extra });
const multiple = (contents: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ designId: "invoice", version: 1, contents, ...extra });
const item = (fileName: string, over: Record<string, unknown> = {}) => ({ fileName, params: {}, ...over });

function refusal(
  raw: string | null,
  mode: "single" | "multiple",
): { code: string; fields: (string | undefined)[]; codes: (string | undefined)[] } {
  try {
    validateGenerationBody(raw, mode);
  } catch (err) {
    expect(err).toBeInstanceOf(PlatenError);
    const { code, details } = err as PlatenError;
    return { code, fields: details.map((d) => d.field), codes: details.map((d) => d.code) };
  }
  throw new Error("the body was accepted");
}

describe("validateGenerationBody: the accepted shape", () => {
  it("turns a single request into a multiple of one, with the content defaults", () => {
    expect(validateGenerationBody(single(item("a", { params: { n: 1 } })), "single")).toEqual({
      mode: "single",
      designId: "invoice",
      version: 1,
      webhookUrl: undefined,
      contents: [{ fileName: "a", shareType: "01", passcodeEnabled: false, params: { n: 1 } }],
    });
  });

  it("keeps a multiple's items in order with their passthrough, and an empty webhookUrl as given (refused later as no endpoint's URL)", () => {
    const raw = multiple(
      [item("a", { shareType: "03", passcodeEnabled: true, passthrough: { order: "A-1", n: 2 } }), item("b")],
      { webhookUrl: "" },
    );
    const request = validateGenerationBody(raw, "multiple");
    expect([
      request.webhookUrl,
      request.contents.map((c) => [c.fileName, c.shareType, c.passcodeEnabled, c.passthrough]),
    ]).toEqual([
      "",
      [
        ["a", "03", true, { order: "A-1", n: 2 }],
        ["b", "01", false, undefined],
      ],
    ]);
    expect(
      validateGenerationBody(multiple([item("a")], { webhookUrl: "https://hooks.example/x" }), "multiple").webhookUrl,
    ).toBe("https://hooks.example/x");
  });
});

describe("validateGenerationBody: refusals", () => {
  it("refuses an empty body, text that is not JSON and JSON that is not an object (VALIDATION_FAILED, no field)", () => {
    for (const raw of [null, "", "not json", "[1]", "42"])
      expect(refusal(raw, "single"), String(raw)).toMatchObject({ code: "VALIDATION_FAILED" });
    expect(refusal("{", "single").fields).toEqual([undefined]);
  });

  it("names missing and mistyped fields, and the single request's params as `params`", () => {
    expect(refusal(JSON.stringify({ version: 1.5, content: { fileName: "a" } }), "single")).toEqual({
      code: "VALIDATION_FAILED",
      fields: ["designId", "version", "params"],
      codes: ["VALIDATION_FAILED", "VALIDATION_FAILED", "VALIDATION_FAILED"],
    });
    expect(refusal(JSON.stringify({ designId: "d", version: 1 }), "single").fields).toEqual(["content"]);
  });

  it("refuses each unknown property by its own field", () => {
    expect(refusal(single(item("a", { colour: "red", size: 1 }), { extra: true }), "single").fields).toEqual([
      "content.colour",
      "content.size",
      "extra",
    ]);
  });

  it("refuses every forbidden fileName character with FILE_NAME_INVALID, and empty or 256-character names", () => {
    const forbidden = ["/", "\\", ":", "*", "?", '"', "<", ">", "|", "\u0000", "\u001f"];
    for (const c of forbidden)
      expect(refusal(single(item(`a${c}b`)), "single"), JSON.stringify(c)).toEqual({
        code: "FILE_NAME_INVALID",
        fields: ["content.fileName"],
        codes: ["FILE_NAME_INVALID"],
      });
    expect(validateGenerationBody(single(item("請求書 2026-01 (最終).pdf")), "single").contents[0]!.fileName).toBe(
      "請求書 2026-01 (最終).pdf",
    );
    for (const name of ["", "x".repeat(256)])
      expect(refusal(single(item(name)), "single").fields).toEqual(["content.fileName"]);
    expect(validateGenerationBody(single(item("x".repeat(255))), "single").contents).toHaveLength(1);
  });

  it("answers VALIDATION_FAILED when kinds are mixed, the kind's own code when all issues share it", () => {
    expect(refusal(JSON.stringify({ version: 1, content: item("a/b") }), "single")).toMatchObject({
      code: "VALIDATION_FAILED",
      codes: ["VALIDATION_FAILED", "FILE_NAME_INVALID"],
    });
    expect(refusal(multiple([item("a/b"), item("c:d")]), "multiple")).toMatchObject({
      code: "FILE_NAME_INVALID",
      fields: ["contents.0.fileName", "contents.1.fileName"],
    });
  });

  it("refuses fileNames equal case-insensitively with FILE_NAME_DUPLICATED, field `contents`", () => {
    expect(refusal(multiple([item("Report"), item("other"), item("report"), item("REPORT")]), "multiple")).toEqual({
      code: "FILE_NAME_DUPLICATED",
      fields: ["contents", "contents"],
      codes: ["FILE_NAME_DUPLICATED", "FILE_NAME_DUPLICATED"],
    });
    expect(validateGenerationBody(multiple([item("a"), item("a.pdf")]), "multiple").contents).toHaveLength(2);
  });

  it(`takes 1 to ${MAX_CONTENTS} contents: more is TOO_MANY_CONTENTS, none VALIDATION_FAILED`, () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => item(`f${i}`));
    expect(validateGenerationBody(multiple(items(MAX_CONTENTS)), "multiple").contents).toHaveLength(MAX_CONTENTS);
    expect(refusal(multiple(items(MAX_CONTENTS + 1)), "multiple")).toMatchObject({
      code: "TOO_MANY_CONTENTS",
      fields: ["contents"],
    });
    expect(refusal(multiple([]), "multiple")).toMatchObject({ code: "VALIDATION_FAILED", fields: ["contents"] });
  });

  it("refuses params and passthrough that are not JSON objects with PARAMS_NOT_OBJECT, naming the item", () => {
    for (const params of [[], "x", 1, null])
      expect(refusal(single(item("a", { params })), "single"), JSON.stringify(params)).toMatchObject({
        code: "PARAMS_NOT_OBJECT",
        fields: ["params"],
      });
    expect(refusal(multiple([item("a"), item("b", { params: [1] })]), "multiple").fields).toEqual([
      "contents.1.params",
    ]);
    expect(refusal(single(item("a", { passthrough: ["x"] })), "single")).toMatchObject({
      code: "PARAMS_NOT_OBJECT",
      fields: ["content.passthrough"],
    });
  });

  it(`keeps passthrough to strings and numbers within ${MAX_PASSTHROUGH_BYTES} bytes, and webhookUrl to ${MAX_WEBHOOK_URL} characters`, () => {
    expect(refusal(single(item("a", { passthrough: { ok: 1, bad: { x: 1 }, no: true } })), "single").fields).toEqual([
      "content.passthrough.bad",
      "content.passthrough.no",
    ]);
    expect(
      refusal(single(item("a", { passthrough: { k: "x".repeat(MAX_PASSTHROUGH_BYTES) } })), "single").fields,
    ).toEqual(["content.passthrough"]);
    expect(
      refusal(single(item("a"), { webhookUrl: `https://h.example/${"x".repeat(MAX_WEBHOOK_URL)}` }), "single").fields,
    ).toEqual(["webhookUrl"]);
  });

  it(`limits each item's params to ${MAX_PARAMS_BYTES} UTF-8 bytes (PARAMS_TOO_LARGE), counting bytes, not characters`, () => {
    const sized = (bytes: number, char: string) => ({
      s: char.repeat(Math.floor((bytes - '{"s":""}'.length) / Buffer.byteLength(char))),
    });
    expect(
      validateGenerationBody(single(item("a", { params: sized(MAX_PARAMS_BYTES, "x") })), "single").contents,
    ).toHaveLength(1);
    expect(refusal(single(item("a", { params: sized(MAX_PARAMS_BYTES + 3, "あ") })), "single")).toEqual({
      code: "PARAMS_TOO_LARGE",
      fields: ["params"],
      codes: ["PARAMS_TOO_LARGE"],
    });
    expect(
      refusal(multiple([item("a"), item("b", { params: sized(MAX_PARAMS_BYTES + 1, "x") })]), "multiple").fields,
    ).toEqual(["contents.1.params"]);
  });

  it("refuses a JSON Reference to itself or an enclosing value (PARAMS_CIRCULAR_REFERENCE), keeps others as data", () => {
    expect(refusal(single(item("a", { params: { tree: { child: { $ref: "#/tree" } } } })), "single")).toEqual({
      code: "PARAMS_CIRCULAR_REFERENCE",
      fields: ["params.tree.child"],
      codes: ["PARAMS_CIRCULAR_REFERENCE"],
    });
    expect(refusal(single(item("a", { params: { self: { $ref: "#" } } })), "single").fields).toEqual(["params.self"]);
    const plain = { a: { x: 1 }, b: { $ref: "#/a" }, c: { $ref: "https://example.com/#/c" }, d: { $ref: "#/%zz" } };
    expect(validateGenerationBody(single(item("a", { params: plain })), "single").contents[0]!.params).toEqual(plain);
  });
});
