import { describe, expect, it } from "vitest";
import { type CatalogueEntry, catalogue, type ErrorCode, formatMessage } from "#shared/errors/catalogue.ts";
import { isPlatenError, PlatenError, untranslated } from "#shared/errors/platen-error.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";

const SITE = "https://platen.example";

/** The documented codes: code → HTTP status (null where the spec gives none). */
const SPEC_CODES: Record<string, number | null> = {
  AUTH_HEADER_MISSING: 412,
  INVALID_CREDENTIALS: 401,
  WORKSPACE_MISMATCH: 403,
  WORKSPACE_SCOPE_VIOLATION: 403,
  WORKSPACE_ROLE_DENIED: 403,
  PLAN_NOT_FOUND: 403,
  ACCESS_DENIED: 403,
  PLAN_PAGE_LIMIT_EXCEEDED: 403,
  ACTIVE_PLAN_NOT_FOUND: 404,
  RATE_LIMITED: 429,
  DESIGN_NOT_FOUND: 404,
  DESIGN_VERSION_NOT_FOUND: 404,
  VERSION_NOT_FOUND: 404,
  VALIDATION_FAILED: 400,
  PARAMS_TYPE_MISMATCH: 400,
  PARAMS_NOT_OBJECT: 400,
  PARAMS_CIRCULAR_REFERENCE: 400,
  PARAMS_TOO_LARGE: 400,
  FILE_NAME_INVALID: 400,
  FILE_NAME_DUPLICATED: 400,
  TOO_MANY_CONTENTS: 400,
  WEBHOOK_URL_NOT_ALLOWED: 400,
  REQUEST_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  FILE_NOT_READY: 409,
  FILE_GENERATION_FAILED: 422,
  JOB_NOT_FOUND: 404,
  RENDER_QUEUE_FULL: 503,
  CONVERT_QUEUE_FULL: 503,
  PARTIAL_FAILURE: null, // webhook only
  GENERATION_INTERRUPTED: null, // status only
  INTERNAL_ERROR: 500,
  TEMPLATE_FAILED: 422,
};

const entries = Object.entries(catalogue) as [ErrorCode, CatalogueEntry][];
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

describe("buildErrorBody: the error shape (README.md#errors)", () => {
  it("has exactly the spec fields, with an empty details array and no retryAfter by default", () => {
    const body = buildErrorBody(new PlatenError("DESIGN_NOT_FOUND"), "en", SITE);
    expect(body).toEqual({
      statusCode: 404,
      code: "DESIGN_NOT_FOUND",
      message: catalogue.DESIGN_NOT_FOUND.en,
      error: "Not Found",
      details: [],
      docsUrl: `${SITE}/docs/errors#design_not_found`,
    });
    expect(Object.keys(body).sort()).toEqual(["code", "details", "docsUrl", "error", "message", "statusCode"]);
    expect("retryAfter" in body).toBe(false);
  });

  it("survives a JSON round trip unchanged (no undefined fields, plain values only)", () => {
    const body = buildErrorBody(
      new PlatenError("FILE_NOT_READY", { retryAfter: 2, vars: { retryAfter: 2 } }),
      "en",
      SITE,
    );
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
  });

  it.each([
    ["AUTH_HEADER_MISSING", 412, "Precondition Failed"],
    ["INVALID_CREDENTIALS", 401, "Unauthorized"],
    ["PLAN_NOT_FOUND", 403, "Forbidden"],
    ["FILE_NOT_READY", 409, "Conflict"],
    ["FILE_GENERATION_FAILED", 422, "Unprocessable Entity"],
    ["RATE_LIMITED", 429, "Too Many Requests"],
    ["INTERNAL_ERROR", 500, "Internal Server Error"],
    ["RENDER_QUEUE_FULL", 503, "Service Unavailable"],
    ["VALIDATION_FAILED", 400, "Bad Request"],
  ] as const)("%s → %i with reason phrase %j", (code, status, phrase) => {
    const body = buildErrorBody(new PlatenError(code), "en", SITE);
    expect(body.statusCode).toBe(status);
    expect(body.error).toBe(phrase);
  });

  it("links the docs page with the lowercase code as anchor; Japanese under /ja/", () => {
    const err = new PlatenError("PLAN_PAGE_LIMIT_EXCEEDED");
    expect(buildErrorBody(err, "en", SITE).docsUrl).toBe("https://platen.example/docs/errors#plan_page_limit_exceeded");
    expect(buildErrorBody(err, "ja", SITE).docsUrl).toBe(
      "https://platen.example/ja/docs/errors#plan_page_limit_exceeded",
    );
    // A trailing slash on the site URL must not double up.
    expect(buildErrorBody(err, "ja", `${SITE}/`).docsUrl).toBe(
      "https://platen.example/ja/docs/errors#plan_page_limit_exceeded",
    );
  });

  it("gives the Japanese message for ja, the English one for en; code stays the same", () => {
    const err = new PlatenError("REQUEST_NOT_FOUND");
    const en = buildErrorBody(err, "en", SITE);
    const ja = buildErrorBody(err, "ja", SITE);
    expect(en.message).toBe(catalogue.REQUEST_NOT_FOUND.en);
    expect(ja.message).toBe(catalogue.REQUEST_NOT_FOUND.ja);
    expect(ja.message).not.toBe(en.message);
    expect(ja.code).toBe(en.code);
    expect(ja.error).toBe(en.error);
  });

  it("carries retryAfter only when given", () => {
    expect(buildErrorBody(new PlatenError("RATE_LIMITED", { retryAfter: 7 }), "en", SITE).retryAfter).toBe(7);
    expect(buildErrorBody(new PlatenError("FILE_NOT_READY", { retryAfter: 2 }), "en", SITE).retryAfter).toBe(2);
    expect("retryAfter" in buildErrorBody(new PlatenError("RATE_LIMITED"), "en", SITE)).toBe(false);
  });
});

describe("buildErrorBody: placeholders", () => {
  it("fills {retryAfter} from vars in both languages", () => {
    const err = new PlatenError("RATE_LIMITED", { retryAfter: 30, vars: { retryAfter: 30 } });
    expect(buildErrorBody(err, "en", SITE).message).toBe(
      "Rate limit exceeded for this workspace. Retry after 30 seconds.",
    );
    expect(buildErrorBody(err, "ja", SITE).message).toContain("30 秒後");
  });

  it("fills {retryAfter} from the error's own retryAfter (one number, not two that can disagree)", () => {
    const err = new PlatenError("FILE_NOT_READY", { retryAfter: 2 });
    const en = buildErrorBody(err, "en", SITE);
    const ja = buildErrorBody(err, "ja", SITE);
    expect(en.message).toBe("The file is still being generated. Retry after 2 seconds.");
    expect(ja.message).toContain("2 秒後");
    expect(`${en.message}${ja.message}`).not.toContain("{retryAfter}");
  });

  it("fills several named placeholders and leaves unknown names visible", () => {
    const err = new PlatenError("PLAN_PAGE_LIMIT_EXCEEDED", { vars: { used: 1000, limit: 1000 } });
    expect(buildErrorBody(err, "en", SITE).message).toBe(
      "The monthly page limit of the plan has been reached (1000 of 1000 pages used).",
    );
    expect(formatMessage("a {x} b {y}", { x: 1 })).toBe("a 1 b {y}");
    expect(formatMessage("no placeholders")).toBe("no placeholders");
  });
});

describe("buildErrorBody: validation errors", () => {
  const details = [
    { field: "contents.0.fileName", code: "FILE_NAME_INVALID", text: { en: "contains '/'", ja: "「/」を含みます" } },
    { field: "params.total", expected: "number", code: "PARAMS_TYPE_MISMATCH", text: untranslated("expected number") },
    { text: { en: "body must be an object", ja: "本文はオブジェクトである必要があります" } },
  ];

  it("answers 400 with an array message, each item prefixed with its field path", () => {
    const body = buildErrorBody(new PlatenError("VALIDATION_FAILED", { details }), "en", SITE);
    expect(body.statusCode).toBe(400);
    expect(body.message).toEqual([
      "contents.0.fileName: contains '/'",
      "params.total: expected number",
      "body must be an object",
    ]);
  });

  it("keeps field, expected and code in details, answers the text as one message, and never invents keys", () => {
    const body = buildErrorBody(new PlatenError("VALIDATION_FAILED", { details }), "en", SITE);
    expect(body.details).toEqual([
      { field: "contents.0.fileName", code: "FILE_NAME_INVALID", message: "contains '/'" },
      { field: "params.total", expected: "number", code: "PARAMS_TYPE_MISMATCH", message: "expected number" },
      { message: "body must be an object" },
    ]);
    for (const d of body.details) expect(Object.values(d)).not.toContain(undefined);
    // The answer's bytes: the keys in the contract's order, the text as `message`.
    expect(JSON.stringify(body.details[0])).toBe(
      '{"field":"contents.0.fileName","code":"FILE_NAME_INVALID","message":"contains \'/\'"}',
    );
  });

  it("answers the Japanese text in details and in the array message for ja, English where there is no translation", () => {
    const body = buildErrorBody(new PlatenError("VALIDATION_FAILED", { details }), "ja", SITE);
    expect(body.details.map((d) => d.message)).toEqual([
      "「/」を含みます",
      "expected number",
      "本文はオブジェクトである必要があります",
    ]);
    expect(body.message).toEqual([
      "contents.0.fileName: 「/」を含みます",
      "params.total: expected number",
      "本文はオブジェクトである必要があります",
    ]);
  });

  it("works the same for a single-kind code such as FILE_NAME_INVALID", () => {
    const body = buildErrorBody(
      new PlatenError("FILE_NAME_INVALID", { details: [{ field: "content.fileName", text: untranslated("bad") }] }),
      "en",
      SITE,
    );
    expect(body.code).toBe("FILE_NAME_INVALID");
    expect(body.message).toEqual(["content.fileName: bad"]);
  });

  it("gives a plain string message for a 400 without details", () => {
    const body = buildErrorBody(new PlatenError("PARAMS_TOO_LARGE"), "en", SITE);
    expect(body.message).toBe(catalogue.PARAMS_TOO_LARGE.en);
    expect(body.details).toEqual([]);
  });

  it("gives a string message for non-400 errors even when they carry details", () => {
    const body = buildErrorBody(
      new PlatenError("FILE_GENERATION_FAILED", {
        vars: { failureCode: "PARAMS_TYPE_MISMATCH", requestId: "r1" },
        details: [{ code: "PARAMS_TYPE_MISMATCH", text: untranslated("x") }],
      }),
      "en",
      SITE,
    );
    expect(body.message).toBe(
      "File generation failed (PARAMS_TYPE_MISMATCH). See GET /v1/file/status/r1 for the reason.",
    );
  });
});

describe("PlatenError", () => {
  it("takes its status from the catalogue, sets name and keeps the cause", () => {
    const cause = new Error("root cause");
    const err = new PlatenError("JOB_NOT_FOUND", { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("PlatenError");
    expect(err.code).toBe("JOB_NOT_FOUND");
    expect(err.status).toBe(404);
    expect(err.cause).toBe(cause);
    expect(err.details).toEqual([]);
    expect(err.vars).toEqual({});
    expect(err.retryAfter).toBeUndefined();
  });

  it("exposes 4xx and hides 5xx", () => {
    for (const [code, entry] of entries) {
      expect(new PlatenError(code).expose, code).toBe(entry.status < 500);
    }
    expect(new PlatenError("INTERNAL_ERROR").expose).toBe(false);
    expect(new PlatenError("RENDER_QUEUE_FULL").expose).toBe(false);
    expect(new PlatenError("DESIGN_NOT_FOUND").expose).toBe(true);
  });

  it("never puts the cause of a 5xx into the body", () => {
    const err = new PlatenError("INTERNAL_ERROR", { cause: new Error("secret-connection-string") });
    const body = buildErrorBody(err, "en", SITE);
    expect(JSON.stringify(body)).not.toContain("secret-connection-string");
    expect(body.message).toBe(catalogue.INTERNAL_ERROR.en);
  });

  it("is recognised across module instances by name and code", () => {
    const lookalike = Object.assign(new Error("x"), { name: "PlatenError", code: "FILE_NOT_FOUND" });
    expect(isPlatenError(new PlatenError("FILE_NOT_FOUND"))).toBe(true);
    expect(isPlatenError(lookalike)).toBe(true);
    expect(isPlatenError(new Error("x"))).toBe(false);
    expect(isPlatenError({ name: "PlatenError", code: "X" })).toBe(false);
    expect(isPlatenError(undefined)).toBe(false);
  });
});

describe("catalogue against the documented codes", () => {
  it.each(Object.entries(SPEC_CODES))("%s exists with the spec's status", (code, status) => {
    const entry = (catalogue as Record<string, CatalogueEntry>)[code];
    expect(entry, `${code} missing from the catalogue`).toBeDefined();
    if (status !== null) expect(entry!.status).toBe(status);
  });

  it.each(entries)("%s has non-empty en and ja messages with the same placeholders", (_code, entry) => {
    expect(entry.en.trim()).not.toBe("");
    expect(entry.ja.trim()).not.toBe("");
    expect(entry.ja).not.toBe(entry.en);
    expect(placeholders(entry.ja)).toEqual(placeholders(entry.en));
  });

  it("uses upper snake case codes and real HTTP statuses", () => {
    for (const [code, entry] of entries) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(Number.isInteger(entry.status)).toBe(true);
      expect(entry.status).toBeGreaterThanOrEqual(200);
      expect(entry.status).toBeLessThan(600);
    }
  });
});
