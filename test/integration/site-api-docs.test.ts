import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { idsOf, siteOrigin } from "../helpers/site-fixtures.ts";

/** The API reference on the site (`/docs/api`, `/ja/docs/api`) over HTTP against `npm start`. */

let stack: SharedStack;
let site: string;
let document: {
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string }>>;
};
let operationIds: string[];

beforeAll(async () => {
  stack = await sharedStack();
  site = siteOrigin(stack);
  const res = await api(stack)("/openapi.json");
  expect(res.status).toBe(200);
  document = (await res.json()) as typeof document;
  operationIds = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
});

afterAll(() => stack?.release());

describe.each([
  ["/docs/api", "en", "/docs/errors"],
  ["/ja/docs/api", "ja", "/ja/docs/errors"],
])("%s over HTTP", (path, lang, errorsPath) => {
  it("answers static HTML under the site's CSP, in its language", async () => {
    const res = await fetch(`${site}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-language")).toBe(lang);
    const page = await res.text();
    expect(page).toContain(`<html lang="${lang}">`);
    expect(page).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it("shows every operation of /v1/openapi.json with its anchor, curl against the served base URL", async () => {
    const page = await (await fetch(`${site}${path}`)).text();
    expect(operationIds.length).toBeGreaterThan(10);
    const anchors = idsOf(page);
    for (const id of operationIds) {
      expect(anchors.has(id), id).toBe(true);
      expect(page, id).toContain(`href="#${id}"`);
    }
    expect(page).toContain(`curl -X POST &#39;${document.servers[0]!.url}/file/sync/single&#39;`);
  });

  it("links error codes to anchors of the error docs page and is linked from the navigation", async () => {
    const page = await (await fetch(`${site}${path}`)).text();
    const errorsPage = await (await fetch(`${site}${errorsPath}`)).text();
    expect(errorsPage).toContain(`href="${path}"`);
    const targets = idsOf(errorsPage);
    const links = [...page.matchAll(new RegExp(`href="${errorsPath}#([a-z_]+)"`, "g"))].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(operationIds.length);
    for (const anchor of links) expect(targets.has(anchor), anchor).toBe(true);
  });
});
