import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { FileRecord } from "#shared/generation/store/index.ts";
import { escapeHtml, html } from "#shared/html/html.ts";
import { consentPage, loginPage, providerErrorPage, refusalPage } from "#shared/identity/screens.ts";
import type { SiteIdentity } from "../../functions/site/identity.ts";
import { layout } from "../../functions/site/layout.ts";
import { errorCodeLink, timeElement, withCode } from "../../functions/site/page-parts.ts";
import { apiReference } from "../../functions/site/pages/api-docs.ts";
import { fileDetails } from "../../functions/site/pages/file-details.ts";
import { historyTable, searchForm, statusBody } from "../../functions/site/pages/output-history.ts";
import { resultsTable } from "../../functions/site/pages/records.ts";
import { flashBlock, keySection, membersSection } from "../../functions/site/pages/settings.ts";
import { endpointSection } from "../../functions/site/pages/settings-hooks.ts";

/**
 * Every page of the site and every auth screen writes markup through the `html` tag of
 * shared/html/html.ts, which escapes what it interpolates. These tests fail when a page
 * builds markup another way (a plain string or template literal, a hand-made fragment),
 * or when user-controlled text comes out unescaped.
 */
const root = resolve(import.meta.dirname, "../..");
const PAGE_FOLDERS = ["functions/site", "shared/identity"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The elements pages write (a placeholder like `<token>` in a message is not one). */
const ELEMENTS =
  "html|head|body|title|meta|link|style|script|header|nav|main|section|div|span|p|a|b|i|em|strong|code|pre|br|" +
  "h[1-6]|ul|ol|li|dl|dt|dd|table|caption|thead|tbody|tr|th|td|form|fieldset|legend|label|input|select|option|" +
  "textarea|button|output|details|summary|time|iframe|img";
/** A start or end tag of one of them, or a doctype. */
const MARKUP = new RegExp(`<\\/?(?:${ELEMENTS})[\\s>/]|<!doctype`, "i");

const isHtmlTag = (node: ts.Node) => ts.isTaggedTemplateExpression(node.parent) && node.parent.tag.getText() === "html";

function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("");
  return undefined;
}

/** Markup outside the tag, and fragments made by hand, as `file:line text`. */
function markupOutsideTheTag(file: string, code = readFileSync(file, "utf8")): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node) => {
    const text = literalText(node);
    if (text !== undefined && MARKUP.test(text) && !isHtmlTag(node)) at(node, text.slice(0, 60));
    if (ts.isNewExpression(node) && node.expression.getText() === "Html") at(node, "new Html(…)");
    // Template spans of a literal are visited as part of it; its expressions still are.
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("pages write markup only through the html tag", () => {
  const files = PAGE_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)));

  it("finds the pages and screens to check", () => {
    const names = files.map((f) => relative(root, f));
    expect(names).toEqual(
      expect.arrayContaining([
        "functions/site/layout.ts",
        "functions/site/pages/api-docs.ts",
        "functions/site/pages/api-docs-text.ts",
        "shared/identity/screens.ts",
      ]),
    );
    expect(names.filter((n) => n.startsWith("functions/site/pages/")).length).toBeGreaterThan(5);
  });

  it("has no markup in a plain string or template literal, and no hand-made fragment", () => {
    expect(files.flatMap((file) => markupOutsideTheTag(file))).toEqual([]);
  });

  it("use the shared tag under that name, never a look-alike", () => {
    const tagged = files.filter((file) => /\bhtml`/.test(readFileSync(file, "utf8")));
    const own = tagged.filter((file) => {
      const code = readFileSync(file, "utf8");
      return (
        !/import \{[^}]*\bhtml\b[^}]*\} from "(?:#shared\/html|\.)\/html\.ts"/.test(code) &&
        !/const html = htmlTag\(/.test(code)
      );
    });
    expect(tagged.length).toBeGreaterThan(5);
    expect(own.map((file) => relative(root, file))).toEqual([]);
  });

  it("would notice markup written by hand", () => {
    const page = join(root, "functions/site/pages/sample.ts");
    const by = (code: string) => markupOutsideTheTag(page, code).map((f) => f.replace(/^\S+ /, ""));
    const hole = ["$", "{name}"].join("");
    expect(by(`const a = html\`<p>${hole}</p>\`;`)).toEqual([]);
    expect(by(`const a = \`<p>${hole}</p>\`;`)).toEqual(["<p></p>"]);
    expect(by('const a = "<!doctype html>" + body;')).toEqual(["<!doctype html>"]);
    expect(by(`const a = other\`<b>${hole}</b>\`;`)).toEqual(["<b></b>"]);
    expect(by('const a = "Authorization: Bearer <token>";')).toEqual([]);
    expect(by("const a = new Html(name);")).toEqual(["new Html(…)"]);
  });
});

/** Text a visitor or an API caller controls, breaking out of content and of either quote. */
const HOSTILE = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>&amp;`;

function expectEscaped(out: string) {
  expect(out).not.toMatch(/<script|<img/i);
  expect(out).not.toContain(`"'>`);
  expect(out).not.toContain(HOSTILE);
}

const hostileFile = (status: string): FileRecord =>
  ({
    requestId: HOSTILE,
    fileId: HOSTILE,
    workspaceId: HOSTILE,
    designId: HOSTILE,
    version: 1,
    fileName: HOSTILE,
    index: 0,
    status,
    source: "async",
    mode: "single",
    shareType: HOSTILE,
    passthrough: { [HOSTILE]: HOSTILE, n: 1 },
    pageCount: 2,
    errorCode: HOSTILE,
    errorMessage: HOSTILE,
    createdAt: HOSTILE,
    expiresAt: 0,
  }) as unknown as FileRecord;

describe("user-controlled text comes out escaped", () => {
  it("in the page shell", () => {
    const ctx = { lang: "en" as const, switchHref: HOSTILE, loggedIn: false, loginHref: HOSTILE };
    const out = layout(ctx, HOSTILE, html`<p>${HOSTILE}</p>`).text;
    expectEscaped(out);
    expect(out).toContain(`<title>${escapeHtml(HOSTILE)} – Platen</title>`);
  });

  it("on the file page, whatever the file's state", () => {
    for (const lang of ["en", "ja"] as const)
      for (const status of ["done", "failed", "queued", HOSTILE])
        expectEscaped(fileDetails(lang, hostileFile(status), HOSTILE).text);
  });

  it("in the webhook endpoints of the settings page", () => {
    const endpoint = {
      id: HOSTILE,
      url: HOSTILE,
      enabled: true,
      designFilterType: "selected" as const,
      targetDesignIds: [HOSTILE, "known"],
      createdAt: HOSTILE,
      updatedAt: HOSTILE,
    };
    const design = {
      id: "known",
      workspaceId: HOSTILE,
      label: HOSTILE,
      latestVersion: 1,
      createdAt: "",
      updatedAt: "",
    };
    const out = endpointSection("en", {
      workspaceId: HOSTILE,
      admin: true,
      endpoints: [endpoint, { ...endpoint, enabled: false, designFilterType: "all" }],
      designs: [design],
      csrf: html`<input type="hidden" name="csrf" value="${HOSTILE}">`,
    }).text;
    expectEscaped(out);
  });

  it("on the output history pages", () => {
    const files = [
      { fileId: HOSTILE, fileName: HOSTILE, status: "failed" as const, passthrough: { [HOSTILE]: HOSTILE } },
    ];
    const summary = { requestId: HOSTILE, designId: HOSTILE, createdAt: HOSTILE, source: "async" as const, files };
    expectEscaped(historyTable("en", HOSTILE, [{ ...summary, status: "failed" }]).text);
    expectEscaped(
      searchForm(
        "ja",
        [
          { id: HOSTILE, name: HOSTILE },
          { id: "w2", name: "b" },
        ],
        HOSTILE,
        HOSTILE,
      ).text,
    );
    const failedFile = { fileId: HOSTILE, fileName: HOSTILE, code: HOSTILE, message: HOSTILE };
    const status = {
      requestId: HOSTILE,
      status: "processing" as const,
      designId: HOSTILE,
      files: [{ fileId: HOSTILE, fileName: HOSTILE, pageCount: 1, downloadPath: HOSTILE }],
      failedFiles: [failedFile],
      error: { code: HOSTILE, message: HOSTILE },
      createdAt: HOSTILE,
      completedAt: HOSTILE,
    };
    expectEscaped(statusBody("en", status).text);
  });

  it("on the records page", () => {
    const record = {
      recordId: HOSTILE,
      workspaceId: HOSTILE,
      type: "invoice" as const,
      date: HOSTILE,
      amount: 1,
      currency: "JPY",
      counterparty: HOSTILE,
      counterpartySearch: HOSTILE,
      number: HOSTILE,
      designId: HOSTILE,
      version: 1,
      requestId: HOSTILE,
      fileId: HOSTILE,
      fileName: HOSTILE,
      sha256: HOSTILE,
      createdAt: HOSTILE,
      seq: 1,
      prevHash: HOSTILE,
      chainHash: HOSTILE,
    };
    expectEscaped(resultsTable("ja", HOSTILE, [record]).text);
  });

  it("on the settings page", async () => {
    const workspace = { id: HOSTILE, name: HOSTILE, appKeyRotatedAt: "2020-01-01T00:00:00.000Z", createdAt: HOSTILE };
    const view = { userId: HOSTILE, workspace, role: "admin" as const, all: [] };
    expectEscaped(keySection("en", view, html`<input type="hidden" name="csrf" value="${HOSTILE}">`).text);
    expectEscaped(String(flashBlock({ kind: "secret", text: HOSTILE, secret: HOSTILE })));
    expectEscaped(String(flashBlock({ kind: "problem", text: HOSTILE })));
    const identity: SiteIdentity = {
      userOf: async () => "u1",
      roleIn: async () => "admin",
      emailOf: async () => HOSTILE,
      workspacesOf: async () => [],
      membersOf: async () => [{ userId: HOSTILE, email: HOSTILE, role: "admin" }],
      clientsOf: async () => [{ clientId: HOSTILE, name: HOSTILE, isPublic: false }],
      loginUrl: () => HOSTILE,
    };
    expectEscaped((await membersSection("ja", identity, "w1")).text);
  });

  it("on the API reference, in every part an OpenAPI document fills", () => {
    const schema = {
      type: "object",
      required: [HOSTILE],
      properties: {
        [HOSTILE]: { type: "string", description: `${HOSTILE} \`${HOSTILE}\``, default: HOSTILE, enum: [HOSTILE] },
        list: { type: "array", items: { type: "object", properties: { [HOSTILE]: { const: HOSTILE } } } },
        ref: { $ref: `#/components/schemas/${HOSTILE}` },
      },
    };
    const json = (examples: Record<string, { value: unknown }>, body?: object) => ({
      "application/json": { ...(body && { schema: body }), examples },
    });
    const operation = {
      operationId: HOSTILE,
      summary: `${HOSTILE} \`${HOSTILE}\``,
      tags: [HOSTILE],
      security: [{ [HOSTILE]: [HOSTILE, HOSTILE] }, { cookie: [] }, { oauth: [HOSTILE] }],
      parameters: [{ name: HOSTILE, in: HOSTILE, required: true, description: HOSTILE, schema: { type: HOSTILE } }],
      requestBody: { required: true, content: json({ [HOSTILE]: { value: { [HOSTILE]: HOSTILE } } }, schema) },
      responses: {
        "200": { description: HOSTILE, content: json({ [HOSTILE]: { value: { [HOSTILE]: HOSTILE } } }) },
        [HOSTILE]: { description: HOSTILE, content: json({ [HOSTILE]: { value: { code: HOSTILE, retryAfter: 1 } } }) },
      },
      "x-platen-example": {
        request: { path: HOSTILE, headers: { [HOSTILE]: HOSTILE } },
        answer: { status: 200, headers: { [HOSTILE]: HOSTILE }, note: HOSTILE },
        error: { status: HOSTILE, code: HOSTILE },
      },
    };
    const document = {
      servers: [{ url: HOSTILE }],
      paths: { [HOSTILE]: { post: operation, get: { ...operation, operationId: "other" } } },
      components: {
        schemas: { [HOSTILE]: { type: HOSTILE, description: HOSTILE } },
        securitySchemes: {
          [HOSTILE]: { type: "apiKey", in: "header", name: HOSTILE },
          cookie: { type: "apiKey", in: "cookie", name: HOSTILE },
          oauth: { type: "oauth2" },
        },
      },
    };
    for (const lang of ["en", "ja"] as const) expectEscaped(apiReference(document, lang).text);
  });

  it("in the shared page parts and the docs' code spans", () => {
    expectEscaped(errorCodeLink("ja", HOSTILE).text);
    expectEscaped(timeElement(HOSTILE).text);
    expectEscaped(html`${withCode(`${HOSTILE} \`${HOSTILE}\` ${HOSTILE}`)}`.text);
  });

  it("on the auth server's login, consent and error screens", () => {
    for (const lang of ["en", "ja"] as const) {
      for (const error of [undefined, "wrong", "limited"] as const)
        expectEscaped(loginPage(lang, { action: HOSTILE, email: HOSTILE, error }));
      const workspaces = [{ id: HOSTILE, name: HOSTILE, role: HOSTILE }];
      for (const list of [workspaces, []])
        expectEscaped(
          consentPage(lang, {
            action: HOSTILE,
            clientName: HOSTILE,
            email: HOSTILE,
            scopes: [HOSTILE, "openid"],
            workspaces: list,
            error: true,
          }),
        );
    }
    expectEscaped(providerErrorPage(HOSTILE, HOSTILE));
    expectEscaped(refusalPage(400, HOSTILE));
  });
});
