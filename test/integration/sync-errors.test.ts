import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { compactPdfText } from "../helpers/pdf-inspect.ts";
import { createTenant, sampleParams, type Tenant } from "../helpers/sync-fixtures.ts";
import { type ErrorBodyJson, readErrorBody, type SyncMode, syncCaller } from "../helpers/sync-http.ts";

/**
 * Refusals of the sync generation endpoints over HTTP (OpenAPI generateSyncSingle, generateSyncMultiple;
 * README.md#errors; shared/limits/README.md#service-limits): every error code with its `details`, the
 * mixed-kind rule, the language of messages, and the inputs the spec says must still render. Requests are
 * spread over fresh workspaces so a per-workspace rate limit (shared/limits/README.md#rate-limits: 30 sync
 * requests/min) cannot interfere with what is tested here.
 */

let stack: SharedStack;
/** One fresh workspace per group of tests, each sending well under 30 requests. */
let tBody: Tenant;
let tNames: Tenant;
let tContents: Tenant;
let tShape: Tenant;
let tTypes: Tenant;
let tLookup: Tenant;

beforeAll(async () => {
  stack = await sharedStack();
  [tBody, tNames, tContents, tShape, tTypes, tLookup] = await Promise.all(
    ["body", "names", "contents", "shape", "types", "lookup"].map((n) => createTenant(stack, `Sync errors ${n}`)),
  );
});

afterAll(() => stack?.release());

const send = (tenant: Tenant | undefined, mode: SyncMode, body: unknown, headers: Record<string, string> = {}) =>
  syncCaller(stack, tenant?.appKey)(mode, body, { headers });

const single = (tenant: Tenant, content: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  designId: tenant.invoiceId,
  version: 1,
  content: { fileName: "test", params: {}, ...content },
  ...extra,
});

const multiple = (tenant: Tenant, contents: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  designId: tenant.invoiceId,
  version: 1,
  contents: contents.map((c, i) => ({ fileName: `file ${i}`, params: {}, ...c })),
  ...extra,
});

/** Checks the error body (README.md#errors) shape and returns it. */
async function expectError(
  res: Response,
  status: number,
  code: string,
  lang: "en" | "ja" = "en",
): Promise<ErrorBodyJson> {
  const body = await readErrorBody(res);
  expect([res.status, body.code]).toEqual([status, code]);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.headers.get("content-language")).toBe(lang);
  expect(body.statusCode).toBe(status);
  expect(body.error).toEqual(expect.any(String));
  expect(body.error.length).toBeGreaterThan(0);
  expect(Array.isArray(body.details)).toBe(true);
  expect(body.docsUrl.endsWith(`#${code.toLowerCase()}`)).toBe(true);
  expect(new URL(body.docsUrl).pathname.startsWith("/ja/")).toBe(lang === "ja");
  if (status === 400) {
    expect(Array.isArray(body.message)).toBe(true);
    expect((body.message as string[]).every((m) => typeof m === "string")).toBe(true);
  } else {
    expect(typeof body.message).toBe("string");
    expect(body.details).toEqual([]);
  }
  return body;
}

const fields = (body: ErrorBodyJson) => body.details.map((d) => d.field);
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

describe("request body (VALIDATION_FAILED, shared/errors/catalogue.ts)", () => {
  it("refuses a body that is not JSON, or JSON that is not an object", async () => {
    for (const raw of ["{", "not json", "", "[]", '"x"', "null"]) {
      const res = await send(tBody, "single", raw);
      const body = await expectError(res, 400, "VALIDATION_FAILED");
      expect(body.details.length, raw).toBeGreaterThan(0);
    }
  });

  it("names the field of a missing designId, a missing content and a missing params", async () => {
    const noDesign = await expectError(
      await send(tBody, "single", { version: 1, content: { fileName: "x", params: {} } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(fields(noDesign)).toEqual(["designId"]);
    const noContent = await expectError(
      await send(tBody, "single", { designId: tBody.invoiceId, version: 1 }),
      400,
      "VALIDATION_FAILED",
    );
    expect(fields(noContent)).toEqual(["content"]);
    const noContents = await expectError(
      await send(tBody, "multiple", { designId: tBody.invoiceId, version: 1 }),
      400,
      "VALIDATION_FAILED",
    );
    expect(fields(noContents)).toEqual(["contents"]);
    const noParams = await expectError(
      await send(tBody, "single", { designId: tBody.invoiceId, version: 1, content: { fileName: "x" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(fields(noParams)).toEqual(["params"]);
  });

  it("refuses a version that is not an integer, with field `version`", async () => {
    for (const version of ["1", 1.5, null, true]) {
      const body = await expectError(
        await send(tBody, "single", single(tBody, {}, { version })),
        400,
        "VALIDATION_FAILED",
      );
      expect([version, fields(body)]).toEqual([version, ["version"]]);
      expect(body.message).toEqual([expect.stringMatching(/^version: /)]);
    }
  });

  it("refuses unknown properties and names them in details[].field", async () => {
    const root = await expectError(
      await send(tBody, "single", single(tBody, {}, { extra: 1 })),
      400,
      "VALIDATION_FAILED",
    );
    const inContent = await expectError(
      await send(tBody, "single", single(tBody, { colour: "red" })),
      400,
      "VALIDATION_FAILED",
    );
    const inItem = await expectError(
      await send(tBody, "multiple", multiple(tBody, [{}, { colour: "red" }])),
      400,
      "VALIDATION_FAILED",
    );
    expect([fields(root), fields(inContent), fields(inItem)]).toEqual([
      ["extra"],
      ["content.colour"],
      ["contents.1.colour"],
    ]);
  });

  it("answers VALIDATION_FAILED when kinds are mixed (a bad fileName and a missing designId, README.md#errors)", async () => {
    const res = await send(tBody, "single", { version: 1, content: { fileName: "a/b", params: {} } });
    const body = await expectError(res, 400, "VALIDATION_FAILED");
    expect(body.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "content.fileName", code: "FILE_NAME_INVALID" }),
        expect.objectContaining({ field: "designId" }),
      ]),
    );
    expect(body.message).toEqual(
      expect.arrayContaining([expect.stringMatching(/^content\.fileName: /), expect.stringMatching(/^designId: /)]),
    );
    const withParams = await expectError(
      await send(tBody, "single", single(tBody, { fileName: "a*b", params: [] })),
      400,
      "VALIDATION_FAILED",
    );
    expect(withParams.details.map((d) => [d.field, d.code])).toEqual([
      ["content.fileName", "FILE_NAME_INVALID"],
      ["params", "PARAMS_NOT_OBJECT"],
    ]);
  });

  it("keeps the kind's own code when all issues are of one kind", async () => {
    const body = await expectError(
      await send(tBody, "multiple", multiple(tBody, [{ fileName: "a/b" }, { fileName: "ok" }, { fileName: "c:d" }])),
      400,
      "FILE_NAME_INVALID",
    );
    expect(fields(body)).toEqual(["contents.0.fileName", "contents.2.fileName"]);
  });
});

/**
 * OpenAPI generateSyncSingle: slash, backslash, colon, asterisk, question mark, double quote, <, >, | and
 * U+0000–U+001F.
 */
const FORBIDDEN = ["/", "\\", ":", "*", "?", '"', "<", ">", "|", "\u0000", "\u0001", "\t", "\n", "\u001f"];

describe("fileName (FILE_NAME_INVALID, OpenAPI generateSyncSingle)", () => {
  it("refuses every forbidden character in a single request, field `content.fileName`", async () => {
    const seen: unknown[] = [];
    for (const ch of FORBIDDEN) {
      const res = await send(tNames, "single", single(tNames, { fileName: `report${ch}2025` }));
      const body = await readErrorBody(res);
      seen.push([JSON.stringify(ch), res.status, body.code, fields(body), body.details.map((d) => d.code)]);
    }
    expect(seen).toEqual(
      FORBIDDEN.map((ch) => [
        JSON.stringify(ch),
        400,
        "FILE_NAME_INVALID",
        ["content.fileName"],
        ["FILE_NAME_INVALID"],
      ]),
    );
  });

  it("refuses every forbidden character in a multiple request, field `contents.1.fileName`", async () => {
    const seen: unknown[] = [];
    for (const ch of FORBIDDEN) {
      const res = await send(
        tContents,
        "multiple",
        multiple(tContents, [{ fileName: "fine" }, { fileName: `${ch}x` }]),
      );
      const body = await readErrorBody(res);
      seen.push([JSON.stringify(ch), res.status, body.code, fields(body)]);
    }
    expect(seen).toEqual(
      FORBIDDEN.map((ch) => [JSON.stringify(ch), 400, "FILE_NAME_INVALID", ["contents.1.fileName"]]),
    );
  });

  it("has the error shape (README.md#errors): prefixed message array, docsUrl anchor", async () => {
    const body = await expectError(
      await send(tNames, "single", single(tNames, { fileName: "a|b" })),
      400,
      "FILE_NAME_INVALID",
    );
    expect(body.message).toEqual([expect.stringMatching(/^content\.fileName: /)]);
    expect(body.error).toBe("Bad Request");
  });
});

describe("contents of a multiple request (OpenAPI generateSyncMultiple)", () => {
  it("refuses fileNames equal case-insensitively with FILE_NAME_DUPLICATED, field `contents`", async () => {
    for (const pair of [
      ["A", "a"],
      ["Rechnung Ärger", "rechnung äRGER"],
    ]) {
      const res = await send(
        tContents,
        "multiple",
        multiple(
          tContents,
          pair.map((fileName) => ({ fileName })),
        ),
      );
      const body = await expectError(res, 400, "FILE_NAME_DUPLICATED");
      expect(body.details.length).toBeGreaterThan(0);
      expect(body.details.every((d) => d.field === "contents")).toBe(true);
    }
  });

  it("refuses 101 contents with TOO_MANY_CONTENTS and 0 contents with VALIDATION_FAILED", async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ fileName: `f${i}` }));
    const many = await expectError(
      await send(tContents, "multiple", multiple(tContents, tooMany)),
      400,
      "TOO_MANY_CONTENTS",
    );
    expect(fields(many)).toEqual(["contents"]);
    const none = await expectError(
      await send(tContents, "multiple", multiple(tContents, [])),
      400,
      "VALIDATION_FAILED",
    );
    expect(fields(none)).toEqual(["contents"]);
    const notArray = await expectError(
      await send(tContents, "multiple", { designId: tContents.invoiceId, version: 1, contents: {} }),
      400,
      "VALIDATION_FAILED",
    );
    expect(fields(notArray)).toEqual(["contents"]);
  });
});

describe("params and passthrough shape (OpenAPI generateSyncSingle, shared/limits/README.md#service-limits)", () => {
  it("refuses params that are not a JSON object with PARAMS_NOT_OBJECT", async () => {
    for (const params of [[], ["a"], "text", null, 42]) {
      const body = await expectError(
        await send(tShape, "single", single(tShape, { params })),
        400,
        "PARAMS_NOT_OBJECT",
      );
      expect([params, fields(body)]).toEqual([params, ["params"]]);
    }
    const inMultiple = await expectError(
      await send(tShape, "multiple", multiple(tShape, [{}, { params: [] }])),
      400,
      "PARAMS_NOT_OBJECT",
    );
    expect(fields(inMultiple)).toEqual(["contents.1.params"]);
  });

  it("refuses a passthrough that is not a JSON object with PARAMS_NOT_OBJECT", async () => {
    for (const passthrough of [["a"], "text", 1, null]) {
      const body = await expectError(
        await send(tShape, "single", single(tShape, { passthrough })),
        400,
        "PARAMS_NOT_OBJECT",
      );
      expect(body.details).toHaveLength(1);
      expect(body.details[0]!.field).toMatch(/(^|\.)passthrough$/);
    }
  });

  it("limits params to 1,000,000 UTF-8 bytes (PARAMS_TOO_LARGE), counting bytes not characters", async () => {
    // {"pad":"…"} is 10 bytes plus the value.
    const ascii = await expectError(
      await send(tShape, "single", single(tShape, { params: { pad: "x".repeat(999_991) } })),
      400,
      "PARAMS_TOO_LARGE",
    );
    expect(fields(ascii)).toEqual(["params"]);
    // 333,331 × 3 bytes + 10 = 1,000,003 bytes but only 333,341 characters.
    const multibyte = await expectError(
      await send(tShape, "single", single(tShape, { params: { pad: "あ".repeat(333_331) } })),
      400,
      "PARAMS_TOO_LARGE",
    );
    expect(fields(multibyte)).toEqual(["params"]);
    const inMultiple = await expectError(
      await send(tShape, "multiple", multiple(tShape, [{}, { params: { pad: "x".repeat(1_000_000) } }])),
      400,
      "PARAMS_TOO_LARGE",
    );
    expect(fields(inMultiple)).toEqual(["contents.1.params"]);
  });

  it("accepts params of exactly 1,000,000 bytes", async () => {
    const base = JSON.stringify({ ...sampleParams("invoice-ja"), pad: "" });
    const params = { ...sampleParams("invoice-ja"), pad: "x".repeat(1_000_000 - Buffer.byteLength(base)) };
    expect(Buffer.byteLength(JSON.stringify(params))).toBe(1_000_000);
    const exact = await send(tShape, "single", single(tShape, { params }));
    expect(exact.status).toBe(200);
  });

  it("refuses circular JSON References with PARAMS_CIRCULAR_REFERENCE", async () => {
    const circular = [
      { a: { $ref: "#/a" } },
      { $ref: "#" },
      { a: { b: { c: { $ref: "#/a" } } } },
      { 明細: [{ $ref: "#/%E6%98%8E%E7%B4%B0" }] },
      { "x/y": { $ref: "#/x~1y" } },
    ];
    for (const params of circular) {
      const body = await expectError(
        await send(tShape, "single", single(tShape, { params })),
        400,
        "PARAMS_CIRCULAR_REFERENCE",
      );
      expect(body.details).toHaveLength(1);
      expect(body.details[0]!.field).toMatch(/^params(\.|$)/);
    }
    const inMultiple = await expectError(
      await send(tShape, "multiple", multiple(tShape, [{}, { params: { a: { $ref: "#/a" } } }])),
      400,
      "PARAMS_CIRCULAR_REFERENCE",
    );
    expect(inMultiple.details[0]!.field).toMatch(/^contents\.1\.params(\.|$)/);
  });

  it("accepts JSON References that are not circular as plain data", async () => {
    for (const extra of [
      { a: { x: 1 }, b: { $ref: "#/a" } },
      { a: { $ref: "https://example.com/schema.json#/a" } },
      { a: [{ $ref: "#/b" }], b: 1 },
    ]) {
      const res = await send(tShape, "single", single(tShape, { params: { ...sampleParams("invoice-ja"), ...extra } }));
      expect([extra, res.status]).toEqual([extra, 200]);
      await res.arrayBuffer();
    }
  });

  it("treats a $ref whose pointer is not valid percent-encoding as plain data, not a server error", async () => {
    const res = await send(
      tShape,
      "single",
      single(tShape, { params: { ...sampleParams("invoice-ja"), note: { $ref: "#/100%" } } }),
    );
    expect(res.status).toBe(200);
  });
});

describe("params against the design schema (PARAMS_TYPE_MISMATCH, OpenAPI getDesignParameters, README.md#errors)", () => {
  it("reports every mismatch with its field path and expected type", async () => {
    const params = {
      ...sampleParams("invoice-ja"),
      請求先: 123,
      明細: [{ 品名: "ok", 数量: "1", 単価: 100 }],
      発行日: "not a date",
      発行元: "a string",
      軽減税率注記: "yes",
    };
    const body = await expectError(
      await send(tTypes, "single", single(tTypes, { params })),
      400,
      "PARAMS_TYPE_MISMATCH",
    );
    const got = body.details.map((d) => [d.field, d.expected, d.code]);
    expect(got).toEqual(
      expect.arrayContaining([
        ["params.請求先", "string", "PARAMS_TYPE_MISMATCH"],
        ["params.明細.0.数量", "number", "PARAMS_TYPE_MISMATCH"],
        ["params.発行日", "date", "PARAMS_TYPE_MISMATCH"],
        ["params.発行元", "object", "PARAMS_TYPE_MISMATCH"],
        ["params.軽減税率注記", "boolean", "PARAMS_TYPE_MISMATCH"],
      ]),
    );
    expect(got).toHaveLength(5);
    expect(body.message).toEqual(expect.arrayContaining([expect.stringMatching(/^params\.明細\.0\.数量: /)]));
  });

  it("expects `array` for an array parameter given an object, and `object` for a row that is not one", async () => {
    const body = await expectError(
      await send(tTypes, "single", single(tTypes, { params: { 明細: { 品名: "x" } } })),
      400,
      "PARAMS_TYPE_MISMATCH",
    );
    expect(body.details.map((d) => [d.field, d.expected])).toEqual([["params.明細", "array"]]);
    const rows = await expectError(
      await send(tTypes, "single", single(tTypes, { params: { 明細: [{ 品名: "ok" }, "row"] } })),
      400,
      "PARAMS_TYPE_MISMATCH",
    );
    expect(rows.details.map((d) => [d.field, d.expected])).toEqual([["params.明細.1", "object"]]);
  });

  it("names the item in a multiple request: contents.<i>.params.<key>", async () => {
    const body = await expectError(
      await send(
        tTypes,
        "multiple",
        multiple(tTypes, [{ params: sampleParams("invoice-ja") }, { params: { 請求先: ["SECRET-PARAM-VALUE"] } }]),
      ),
      400,
      "PARAMS_TYPE_MISMATCH",
    );
    expect(body.details.map((d) => [d.field, d.expected])).toEqual([["contents.1.params.請求先", "string"]]);
    expect(JSON.stringify(body)).not.toContain("SECRET-PARAM-VALUE"); // values are not echoed in errors either
  });

  it("refuses dates that do not exist or carry an impossible time (OpenAPI getDesignParameters: ISO 8601)", async () => {
    const values = ["2025-13-01", "2025-02-30", "2025-04-31", "2025-04-30T25:99", "2025-04-30T10:61:00Z"];
    const seen: unknown[] = [];
    for (const value of values) {
      const res = await send(tTypes, "single", single(tTypes, { params: { 発行日: value } }));
      const body = res.headers.get("content-type")?.startsWith("application/json")
        ? await readErrorBody(res)
        : undefined;
      if (!body) await res.arrayBuffer();
      seen.push([value, res.status, body?.details.map((d) => [d.field, d.expected])]);
    }
    expect(seen).toEqual(values.map((v) => [v, 400, [["params.発行日", "date"]]]));
  });

  it("ignores unknown keys and a label used as a key (200)", async () => {
    const params = { ...sampleParams("invoice-ja"), unknownKey: { deep: [1, 2] }, お振込先: 42, "請求先 ": 1 };
    const res = await send(tTypes, "single", single(tTypes, { params }));
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it("renders missing keys empty and keeps a missing boolean at its default", async () => {
    const empty = await send(tTypes, "single", single(tTypes, { params: {} }));
    expect(empty.status).toBe(200);
    const emptyText = await compactPdfText(new Uint8Array(await empty.arrayBuffer()));
    expect(emptyText).toContain("請求書");
    expect(emptyText).toContain("明細はありません");
    // 軽減税率注記 defaults to true: the 8 % note is printed although the key is missing.
    const rows = [{ 品名: "弁当", 数量: 1, 単価: 1000, 税率: 8 }];
    const withDefault = await send(tTypes, "single", single(tTypes, { params: { 明細: rows } }));
    expect(withDefault.status).toBe(200);
    expect(await compactPdfText(new Uint8Array(await withDefault.arrayBuffer()))).toContain("※は軽減税率");
    const off = await send(tTypes, "single", single(tTypes, { params: { 明細: rows, 軽減税率注記: false } }));
    expect(off.status).toBe(200);
    expect(await compactPdfText(new Uint8Array(await off.arrayBuffer()))).not.toContain("※は軽減税率");
  });
});

describe("design lookup, webhookUrl and authentication", () => {
  it("answers 404 DESIGN_VERSION_NOT_FOUND for an unknown designId or version", async () => {
    const unknownId = await send(tLookup, "single", single(tLookup, {}, { designId: "AAAAAAAAAAAAAAAA" }));
    await expectError(unknownId, 404, "DESIGN_VERSION_NOT_FOUND");
    const unknownVersion = await send(tLookup, "single", single(tLookup, {}, { version: 99 }));
    await expectError(unknownVersion, 404, "DESIGN_VERSION_NOT_FOUND");
    const inMultiple = await send(tLookup, "multiple", multiple(tLookup, [{}], { version: 2 }));
    await expectError(inMultiple, 404, "DESIGN_VERSION_NOT_FOUND");
  });

  it("does not check the designId format: any unknown id is 404, never 400 or 500 (OpenAPI generateSyncSingle)", async () => {
    const ids = ["not-an-id", "550e8400-e29b-41d4-a716-446655440000", "../../etc/passwd", "#WS#x", "A".repeat(3000)];
    const seen: unknown[] = [];
    for (const designId of ids) {
      const res = await send(tLookup, "single", single(tLookup, {}, { designId }));
      seen.push([designId.slice(0, 20), res.status, (await readErrorBody(res)).code]);
    }
    expect(seen).toEqual(ids.map((id) => [id.slice(0, 20), 404, "DESIGN_VERSION_NOT_FOUND"]));
  });

  it("hides another workspace's design (tenant isolation)", async () => {
    const res = await send(tLookup, "single", single(tLookup, {}, { designId: tBody.invoiceId }));
    await expectError(res, 404, "DESIGN_VERSION_NOT_FOUND");
    const second = stack.localJson.workspaces[1]!;
    const seeded = second.designs.find((d) => d.label.includes("請求書"))!;
    await expectError(
      await send(tLookup, "multiple", multiple(tLookup, [{}], { designId: seeded.id })),
      404,
      "DESIGN_VERSION_NOT_FOUND",
    );
  });

  it("refuses any webhookUrl with WEBHOOK_URL_NOT_ALLOWED while no endpoint is registered", async () => {
    const body = await expectError(
      await send(tLookup, "single", single(tLookup, {}, { webhookUrl: "https://hooks.example.com/platen" })),
      400,
      "WEBHOOK_URL_NOT_ALLOWED",
    );
    expect(fields(body)).toEqual(["webhookUrl"]);
    await expectError(
      await send(tLookup, "multiple", multiple(tLookup, [{}], { webhookUrl: "https://hooks.example.com/platen" })),
      400,
      "WEBHOOK_URL_NOT_ALLOWED",
    );
  });

  it("answers 412 AUTH_HEADER_MISSING without an appkey and 401 for an unknown one", async () => {
    await expectError(await send(undefined, "single", single(tLookup, {})), 412, "AUTH_HEADER_MISSING");
    await expectError(await send(undefined, "multiple", multiple(tLookup, [{}])), 412, "AUTH_HEADER_MISSING");
    const wrongKey = syncCaller(stack, `plt_${"A".repeat(40)}`)("single", single(tLookup, {}));
    await expectError(await wrongKey, 401, "INVALID_CREDENTIALS");
  });
});

describe("language of error messages (see README.md#errors)", () => {
  const ja = { "accept-language": "ja" };

  it("answers validation errors in Japanese: message array, details, Content-Language, docsUrl", async () => {
    const body = await expectError(
      await send(tLookup, "single", single(tLookup, { fileName: "a:b" }), ja),
      400,
      "FILE_NAME_INVALID",
      "ja",
    );
    expect(body.message).toEqual([expect.stringMatching(/^content\.fileName: /)]);
    expect((body.message as string[])[0]).toMatch(JAPANESE);
    expect(body.details[0]!.message).toMatch(JAPANESE);
    expect(body.docsUrl).toContain("/ja/");
    expect(body.code).toBe("FILE_NAME_INVALID");
  });

  it("translates params mismatch details", async () => {
    const body = await expectError(
      await send(tLookup, "single", single(tLookup, { params: { 請求先: 1, 明細: [{ 数量: "x" }] } }), ja),
      400,
      "PARAMS_TYPE_MISMATCH",
      "ja",
    );
    expect(body.details.map((d) => d.field)).toEqual(["params.請求先", "params.明細.0.数量"]);
    for (const d of body.details) expect(d.message).toMatch(JAPANESE);
    for (const m of body.message as string[]) expect(m).toMatch(JAPANESE);
  });

  it("translates non-validation errors (a string message)", async () => {
    const body = await expectError(
      await send(tLookup, "single", single(tLookup, {}, { designId: "AAAAAAAAAAAAAAAA" }), {
        "accept-language": "ja-JP,en;q=0.5",
      }),
      404,
      "DESIGN_VERSION_NOT_FOUND",
      "ja",
    );
    expect(body.message).toMatch(JAPANESE);
  });

  it("stays English unless ja is the highest-priority tag", async () => {
    const body = await expectError(
      await send(tLookup, "single", single(tLookup, { fileName: "a:b" }), { "accept-language": "en-US, ja;q=0.9" }),
      400,
      "FILE_NAME_INVALID",
      "en",
    );
    expect(JSON.stringify(body)).not.toMatch(JAPANESE);
    const weighted = await send(tLookup, "single", single(tLookup, { fileName: "a:b" }), {
      "accept-language": "en;q=0.4, ja;q=0.8",
    });
    await expectError(weighted, 400, "FILE_NAME_INVALID", "ja");
  });
});

describe("messages that say what happened", () => {
  const ja = { "accept-language": "ja" };
  const onlyMessage = (body: ErrorBodyJson) => {
    expect(body.details).toHaveLength(1);
    return body.details[0]!.message;
  };

  it("says a body is not JSON and where, in English and Japanese, without echoing it", async () => {
    const raw = '{\n  "designId": "d",\n  "version": 1,\n  "content": {"fileName": "SECRET-NAME", "params": {}},\n}';
    const en = onlyMessage(await expectError(await send(tBody, "single", raw), 400, "VALIDATION_FAILED"));
    expect(en).toMatch(/^the body is not valid JSON \(line 5, column 1\): /);
    const inJa = onlyMessage(await expectError(await send(tBody, "single", raw, ja), 400, "VALIDATION_FAILED", "ja"));
    expect(inJa).toBe("本文が正しい JSON ではありません（5 行 1 列目）");
    const token = onlyMessage(
      await expectError(await send(tBody, "single", '{"a": SECRET}'), 400, "VALIDATION_FAILED"),
    );
    expect(token).toMatch(/\(line 1, column 7\)/);
    expect(`${en}${token}`).not.toContain("SECRET");
    const empty = onlyMessage(await expectError(await send(tBody, "single", ""), 400, "VALIDATION_FAILED"));
    expect(empty).toBe("the body is empty: send a JSON object");
  });

  it("says a malformed appkey is missing or malformed (412), in both languages", async () => {
    for (const key of ["not-a-key", "plt_short", ""]) {
      const call = syncCaller(stack, key);
      const en = await expectError(await call("single", single(tLookup, {})), 412, "AUTH_HEADER_MISSING");
      expect(en.message).toMatch(/missing or malformed/);
      const inJa = await expectError(
        await call("single", single(tLookup, {}), { headers: ja }),
        412,
        "AUTH_HEADER_MISSING",
        "ja",
      );
      expect(inJa.message).toContain("形式が正しくありません");
    }
  });

  it("translates zod's validation messages with Accept-Language: ja (types, options, sizes, unknown keys)", async () => {
    const bad = {
      designId: 7,
      version: 1.5,
      content: { fileName: "", shareType: "9", passcodeEnabled: "yes", params: {}, colour: "red" },
    };
    const enBody = await expectError(await send(tBody, "single", bad), 400, "VALIDATION_FAILED");
    const jaBody = await expectError(await send(tBody, "single", bad, ja), 400, "VALIDATION_FAILED", "ja");
    const expectedFields = [
      "designId",
      "version",
      "content.fileName",
      "content.shareType",
      "content.passcodeEnabled",
      "content.colour",
    ];
    expect(fields(enBody)).toEqual(expectedFields);
    expect(fields(jaBody)).toEqual(expectedFields);
    for (const d of jaBody.details) expect(d.message, d.field).toMatch(JAPANESE);
    for (const d of enBody.details) expect(d.message, d.field).not.toMatch(JAPANESE);
    expect(jaBody.message).toEqual(
      expectedFields.map((f) => expect.stringMatching(new RegExp(`^${f.replace(".", "\\.")}: .*[\\u3040-\\u30ff]`))),
    );
    expect(enBody.details.find((d) => d.field === "content.shareType")!.message).toMatch(/"01"\|"02"\|"03"/);
    expect(jaBody.details.find((d) => d.field === "content.colour")!.message).toContain('"colour"');
  });

  it("says a missing field is required, in both languages", async () => {
    const noParams = { designId: tBody.invoiceId, version: 1, content: { fileName: "x" } };
    const en = await expectError(await send(tBody, "single", noParams), 400, "VALIDATION_FAILED");
    const inJa = await expectError(await send(tBody, "single", noParams, ja), 400, "VALIDATION_FAILED", "ja");
    expect([en.message, inJa.message]).toEqual([["params: is required"], ["params: 必須です"]]);
  });

  it("names the accepted date format when a date parameter is wrong, without echoing the value", async () => {
    const res = await send(tTypes, "single", single(tTypes, { params: { 発行日: "21/11/2026 SECRET" } }));
    const body = await expectError(res, 400, "PARAMS_TYPE_MISMATCH");
    expect(body.details.map((d) => [d.field, d.expected])).toEqual([["params.発行日", "date"]]);
    expect(body.details[0]!.message).toMatch(/^expected date as YYYY-MM-DD \(ISO 8601; .*2026-11-21T09:30:00\+09:00\)/);
    expect(JSON.stringify(body)).not.toContain("SECRET");
    const inJa = await expectError(
      await send(tTypes, "single", single(tTypes, { params: { 発行日: 20261121 } }), ja),
      400,
      "PARAMS_TYPE_MISMATCH",
      "ja",
    );
    expect(inJa.details[0]!.message).toMatch(
      /^YYYY-MM-DD 形式（ISO 8601。.*）の日付が必要ですが、number 型が指定されました$/,
    );
  });
});

describe("status and download of ids that cannot be ids", () => {
  it("answers as for an unknown id when a path id is too long for a DynamoDB key (a 2,000-character fileId answered 500)", async () => {
    const call = api(stack, tLookup.appKey);
    const unknown = "AAAAAAAAAAAAAAAA";
    const long = "a".repeat(2_100);
    const routes = [
      (r: string, f: string) => `/file/download/${r}/${f}`,
      (r: string) => `/file/download/${r}`,
      (r: string) => `/file/status/${r}`,
    ];
    for (const route of routes) {
      const expected = await call(route(unknown, unknown));
      expect(expected.status).toBe(404);
      const want = (await expected.json()).code;
      for (const path of [route(long, unknown), route(unknown, long)]) {
        const res = await call(path);
        expect([path.slice(0, 40), res.status, (await res.json()).code]).toEqual([path.slice(0, 40), 404, want]);
      }
    }
  });
});
