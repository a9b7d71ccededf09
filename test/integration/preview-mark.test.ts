import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { designApi, jsonDesign } from "../helpers/design-fixtures.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { createPlanTenant, pagesUsedNow } from "../helpers/limits-stack.ts";
import { invoiceSingle, postJson } from "../helpers/limits-http.ts";
import { removeDataDir, type RunningStack, startStack } from "../helpers/local-stack.ts";
import { pdfInfo, pdfPageTexts } from "../helpers/pdf-tools.ts";
import { markPixels } from "../helpers/png-pixels.ts";
import { csrfOf } from "../helpers/site-direct.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { loginCookie, siteOrigin } from "../helpers/site-fixtures.ts";

/**
 * A preview stays a preview whatever its design says (shared/authoring/README.md#preview): the PREVIEW mark is
 * stamped into the printed PDF on every page, so CSS cannot take it away; the Title is the preview's; page images
 * show the mark; and preview pages count against the plan's monthly preview allowance
 * (shared/limits/README.md#preview-allowance), apart from generation pages. The `personal` plan's allowance is
 * lowered to 4 pages for the allowance tests; the others preview on `standard` (its default allowance).
 */
const ENV = { PLATEN_PREVIEW_PAGES: JSON.stringify({ personal: 4 }) };

let stack: RunningStack;
let call: ReturnType<typeof designApi>;
let demoToken: string;

/** A token with designs:read and designs:write for a workspace. */
async function designToken(workspaceId: string): Promise<string> {
  const client = await makeConfidentialClient(workspaceId, ["designs:read", "designs:write"]);
  return clientCredentialsToken(stack, client, "designs:read designs:write");
}

beforeAll(async () => {
  stack = await startStack({ env: ENV });
  useStackEmulators(stack.dataDir);
  call = designApi(stack);
  demoToken = await designToken(stack.localJson.workspaces[0]!.id);
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** `pages` pages, each saying its number; no red anywhere, so any red in a page image is the mark's. */
const pagesDesign = (label: string, style: string, pages = 3, extra: Record<string, unknown> = {}) =>
  jsonDesign(label, {
    template: `{% for i in (1..${pages}) %}<section class="pg">Page {{ i }} {{ title }}</section>{% endfor %}`,
    style: `.pg + .pg { break-before: page; }\n${style}`,
    ...extra,
  });

/** Styles of a design that take a CSS mark away (each was reproduced against the CSS mark). */
const hostileStyles: [string, string][] = [
  ["content: none on :root::after", ":root::after { content: none !important; }"],
  ["a rule inside @layer", "@layer hide { html::after { content: none !important; display: none !important; } }"],
  ["a filter on html", "html { filter: opacity(0); }"],
];

describe("the PREVIEW mark", () => {
  it.each(hostileStyles)("stays on every page of the PDF and of its page images against %s", async (_name, style) => {
    const body = { bundle: pagesDesign(`Hostile ${_name}`, style) };
    const pdf = await call("POST", "/designs/preview", { token: demoToken }, body);
    expect(pdf.status, pdf.bytes.toString().slice(0, 300)).toBe(200);
    const texts = pdfPageTexts(pdf.bytes);
    expect(texts).toHaveLength(3);
    for (const [i, text] of texts.entries()) expect(text, `page ${i + 1}`).toContain("PREVIEW");
    for (const page of [1, 2, 3]) {
      const png = await call("POST", `/designs/preview?format=png&page=${page}`, { token: demoToken }, body);
      expect(png.status).toBe(200);
      expect(markPixels(png.bytes), `page ${page}`).toBeGreaterThan(5_000);
    }
  });

  it("titles the PDF as the preview whatever the version's metadata.title says", async () => {
    // A zip: the JSON form carries no `metadata`, design.json does.
    const { template, style, ...manifest } = pagesDesign("Titled", "", 1);
    const zip = new JSZip();
    zip.file(
      "design.json",
      JSON.stringify({ ...manifest, metadata: { title: "Invoice 2026-001", author: "Accounts" } }),
    );
    zip.file("template.liquid", template);
    zip.file("style.css", style);
    const created = await call(
      "POST",
      "/designs",
      { token: demoToken },
      await zip.generateAsync({ type: "nodebuffer" }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const pdf = await call("POST", "/designs/preview", { token: demoToken }, { designId: created.body.id, version: 1 });
    expect(pdf.status).toBe(200);
    const info = pdfInfo(pdf.bytes);
    expect(info.Title).toBe("PREVIEW Titled");
    expect(info.Author).toBe("Accounts");
  });

  it("is in the studio's preview images and in a version's sample pages on the site", async () => {
    const site = siteOrigin(stack);
    const admin = stack.localJson.users.find((u) => u.email === "demo@platen.local")!;
    const cookie = await loginCookie(site, admin);
    const style = hostileStyles[0]![1];
    const created = await call("POST", "/designs", { token: demoToken }, pagesDesign("Studio hostile", style, 2));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const designId = created.body.id as string;
    const editor = await (await fetch(`${site}/designs/${designId}`, { headers: { cookie } })).text();
    const design = pagesDesign("Studio hostile", style, 2);
    const preview = await fetch(`${site}/designs/${designId}/preview`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-csrf-token": csrfOf(editor) },
      body: JSON.stringify({
        template: design.template,
        style: design.style,
        parameters: design.parameters,
        sampleParams: design.sampleParams,
      }),
    });
    expect(preview.status).toBe(200);
    const { pageCount, pages } = (await preview.json()) as { pageCount: number; pages: string[] };
    expect([pageCount, pages.length]).toEqual([2, 2]);
    for (const url of pages) expect(markPixels(Buffer.from(url.split(",")[1]!, "base64"))).toBeGreaterThan(5_000);
    for (const page of [1, 2]) {
      const image = await fetch(`${site}/designs/${designId}/versions/1/sample/pages/${page}.png`, {
        headers: { cookie },
      });
      expect(image.status).toBe(200);
      expect(markPixels(Buffer.from(await image.arrayBuffer())), `sample page ${page}`).toBeGreaterThan(5_000);
    }
  });
});

describe("the preview allowance", () => {
  it("counts preview pages per month apart from generation pages, and refuses once spent (403 PREVIEW_ALLOWANCE_EXCEEDED)", async () => {
    const tenant = await createPlanTenant(stack, "preview allowance", "personal");
    const token = await designToken(tenant.workspaceId);
    const preview = (pages: number, headers: Record<string, string> = {}) =>
      fetch(`${stack.baseUrl}/designs/preview`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
        body: JSON.stringify({ bundle: pagesDesign(`Allowance ${pages}`, "", pages) }),
      });
    const generated = await pagesUsedNow(stack, tenant.workspaceId);
    // 4 preview pages a month: 2, then a 3-page preview that does not fit (refused, nothing counted), then 2.
    expect((await preview(2)).status).toBe(200);
    const tooLong = await preview(3);
    expect(tooLong.status).toBe(403);
    const tooLongBody = await tooLong.json();
    expect(tooLongBody.code).toBe("PREVIEW_ALLOWANCE_EXCEEDED");
    expect(tooLongBody.details[0]).toMatchObject({ field: "pages" });
    expect((await preview(2)).status).toBe(200);
    const spent = await preview(1);
    expect(spent.status).toBe(403);
    const body = await spent.json();
    expect(body.code).toBe("PREVIEW_ALLOWANCE_EXCEEDED");
    expect(body.message).toContain("4 of 4 preview pages");
    const ja = await (await preview(1, { "accept-language": "ja" })).json();
    expect([ja.code, ja.message]).toEqual(["PREVIEW_ALLOWANCE_EXCEEDED", expect.stringContaining("プレビュー")]);
    // Previews never touched the generation pages, and generation still works with the allowance spent.
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(generated);
    const sync = await postJson(
      stack,
      tenant.appKey,
      "/file/sync/single?response=json",
      invoiceSingle(tenant.invoiceId),
    );
    expect(sync.status).toBe(200);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(generated + 1);
  });
});
