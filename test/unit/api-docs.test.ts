import type { APIGatewayProxyEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { routes } from "#shared/definitions/routes.ts";
import type { Language } from "#shared/errors/language.ts";
import { buildOpenApiDocument } from "#shared/openapi/document.ts";
import { apiReference } from "../../functions/site/pages/api-docs.ts";
import { errorDocsPage } from "../../functions/site/pages/error-docs.ts";
import type { SiteRequest } from "../../functions/site/site-types.ts";
import { FakeIdentity } from "../helpers/site-direct.ts";

/** The API reference page (`/docs/api`): generated from the OpenAPI document, escaped, linked to the error docs. */

const urls = {
  baseUrl: "https://api.example.test/v1",
  authUrl: "https://auth.example.test",
  siteUrl: "https://site.test",
};
const doc = buildOpenApiDocument(routes, urls) as {
  paths: Record<string, Record<string, { operationId: string; summary: string }>>;
  components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> };
};
const operationIds = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));

const ids = (page: string) => new Set([...page.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));

function request(path: string, lang: Language): SiteRequest {
  return {
    event: {} as APIGatewayProxyEvent,
    method: "GET",
    path,
    params: {},
    lang,
    header: () => undefined,
    query: () => undefined,
    cookie: () => undefined,
    form: () => new URLSearchParams(),
    sourceIp: "127.0.0.1",
    returnTo: path,
    bodyText: () => null,
    bodyBytes: () => null,
    remainingMs: () => 30_000,
  };
}

async function errorDocsAnchors(lang: Language): Promise<Set<string>> {
  const result = await errorDocsPage(new FakeIdentity())(
    request(lang === "ja" ? "/ja/docs/errors" : "/docs/errors", lang),
  );
  if (!("page" in result)) throw new Error("the error docs page answered no page");
  return ids(result.page.text);
}

describe.each(["en", "ja"] as const)("API reference (%s)", (lang) => {
  const page = apiReference(doc, lang).text;
  const errorsPath = lang === "ja" ? "/ja/docs/errors" : "/docs/errors";

  it("has a section anchored at every operationId, listed in the contents", () => {
    expect(operationIds.length).toBe(routes.length);
    const anchors = ids(page);
    for (const id of operationIds) {
      expect(anchors.has(id), id).toBe(true);
      expect(page).toContain(`href="#${id}"`);
    }
    for (const tag of ["service", "designs", "generation", "management"]) expect(anchors.has(`tag-${tag}`)).toBe(true);
  });

  it("links every in-page reference to an anchor of the page, and no id repeats", () => {
    const all = [...page.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
    expect(all.length).toBe(new Set(all).size);
    const anchors = ids(page);
    for (const [, target] of page.matchAll(/href="#([^"]+)"/g)) expect(anchors.has(target!), target).toBe(true);
  });

  it("links each error code to an anchor that exists on the error docs page of its language", async () => {
    const anchors = await errorDocsAnchors(lang);
    const links = [...page.matchAll(/href="([^"#]*)#([^"]+)"/g)].filter(([, path]) => path !== "");
    expect(links.length).toBeGreaterThan(operationIds.length);
    for (const [, path, anchor] of links) {
      expect(path).toBe(errorsPath);
      expect(anchors.has(anchor!), anchor).toBe(true);
    }
    // Codes the document lists for an error answer are all on the page.
    expect(page).toContain(`href="${errorsPath}#idempotency_key_in_progress"`);
    expect(page).toContain(`href="${errorsPath}#webhook_endpoint_limit_exceeded"`);
  });

  it("shows an example request as curl and an example answer for every operation", () => {
    const sections = page.split('<section class="api-op"').slice(1);
    expect(sections).toHaveLength(operationIds.length);
    for (const section of sections) {
      expect(section).toMatch(/<pre><code>curl (-X [A-Z]+ )?&#39;https:\/\/api\.example\.test\/v1\//);
      expect(section).toMatch(/<pre><code>HTTP\/1\.1 [1-5]\d\d /);
    }
    expect(page).toContain("-H &#39;appkey: plt_");
    expect(page).toContain("--data &#39;{");
  });

  it("writes the page's own labels in its language", () => {
    if (lang === "ja") {
      for (const label of ["リクエスト本文", "パラメーター", "応答の例", "目次"]) expect(page).toContain(label);
      expect(page).not.toContain("Request body");
    } else
      for (const label of ["Request body", "Parameters", "Example answer", "Contents"]) expect(page).toContain(label);
  });
});

describe("API reference escaping", () => {
  it("escapes what the document says: no raw < from schema descriptions or summaries", () => {
    const hostile = structuredClone(doc);
    const body = hostile.components.schemas.GenerateSyncSingleBody!.properties!;
    body.designId!.description = '<img src=x onerror="alert(1)"> & `<b>`';
    hostile.paths["/file/sync/single"]!.post!.summary = "<script>alert(1)</script>";
    const page = apiReference(hostile, "en").text;
    expect(page).not.toContain("<img");
    expect(page).not.toContain("<script");
    expect(page).not.toContain("<b>");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; <code>&lt;b&gt;</code>");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("quotes the curl command for a POSIX shell", () => {
    const quoted = structuredClone(doc) as unknown as {
      paths: Record<string, Record<string, { "x-platen-example": { request: { headers: Record<string, string> } } }>>;
    };
    quoted.paths["/file/status/{requestId}"]!.get!["x-platen-example"].request.headers = { appkey: "it's" };
    const page = apiReference(quoted, "en").text;
    // '\'' closes the quote, adds an escaped quote, reopens: the shell sees it's.
    expect(page).toContain("-H &#39;appkey: it&#39;\\&#39;&#39;s&#39;");
  });

  it("keeps the real descriptions' < and quotes as text (fileName lists the forbidden characters)", () => {
    const page = apiReference(doc, "en").text;
    expect(page).toContain("none of / \\ : * ? &quot; &lt; &gt; |");
    // Every tag on the page is one the generator writes.
    const tags = new Set([...page.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase()));
    const allowed = "a code dd dl dt h2 h3 h4 li nav p pre section table tbody td th thead tr ul".split(" ");
    expect([...tags].filter((t) => !allowed.includes(t))).toEqual([]);
  });
});
