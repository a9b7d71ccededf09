import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { siteStaticAssets } from "#shared/definitions/static-assets.ts";
import { removeDataDir, type RunningStack, startStack } from "../helpers/local-stack.ts";
import { csrfOf, directSite, FakeIdentity } from "../helpers/site-direct.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { form, loginCookie, siteAs } from "../helpers/site-fixtures.ts";

/**
 * The design studio's forms without script and its access rules, over HTTP against `npm start`
 * (the seeded ADMIN logs in with the real form) and in-process with the identity faked (a READ
 * member, another workspace's member).
 */
let stack: RunningStack;
let origin: string;
let cookie = "";
let wsA: string;
let seeded: string;
const identity = new FakeIdentity().addUser("reader", "reader@a.example").addUser("outsider", "o@b.example");
const site = directSite(identity);

/** Requests to the site as the logged-in ADMIN, without following redirects. */
const { as: asAdmin, pageOf } = siteAs(() => ({ origin, cookie }));

beforeAll(async () => {
  stack = await startStack();
  useStackEmulators(stack.dataDir);
  origin = new URL(stack.localJson.siteUrl).origin;
  const [a, b] = stack.localJson.workspaces;
  wsA = a!.id;
  seeded = a!.designs[0]!.id;
  identity.grant(wsA, "reader", "read").grant(b!.id, "outsider", "admin");
  const admin = stack.localJson.users.find((u) => u.email === "demo@platen.local")!;
  cookie = await loginCookie(origin, admin);
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

/** A bundle zip of a sample folder, as a user would zip it. */
async function sampleZip(folder: string): Promise<Buffer> {
  const zip = new JSZip();
  const dir = join(import.meta.dirname, "../../shared/designs/samples", folder);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      zip.file(path.slice(dir.length + 1), readFileSync(path));
    }
  return zip.generateAsync({ type: "nodebuffer" });
}

async function upload(zip: Buffer, csrf: string): Promise<Response> {
  const body = new FormData();
  body.set("csrf", csrf);
  body.set("workspace", wsA);
  body.set("kind", "upload");
  body.set("bundle", new Blob([new Uint8Array(zip)], { type: "application/zip" }), "bundle.zip");
  return asAdmin("/designs", { method: "POST", body });
}

describe("the studio without script (an ADMIN)", () => {
  let designId: string;

  it("lists the designs with thumbnails, latest version and who changed them, and creates one from an uploaded zip", async () => {
    const list = await pageOf("/designs");
    expect(list).toContain(`data-design="${seeded}"`);
    expect(list).toContain(`src="/designs/${seeded}/thumbnail?version=1"`);
    expect(list).toContain('id="create-upload"');
    const thumbnail = await asAdmin(`/designs/${seeded}/thumbnail?version=1`);
    expect(thumbnail.headers.get("content-type")).toBe("image/png");
    const created = await upload(await sampleZip("certificate-en"), csrfOf(list));
    expect(created.status).toBe(303);
    designId = created.headers.get("location")!.split("/").pop()!;
    expect(await pageOf("/designs")).toContain(`data-design="${designId}"`);
  });

  it("shows a refused zip's problems with their file on the designs page (422)", async () => {
    const zip = new JSZip();
    zip.file("design.json", '{"label": "x", "parameters": []}');
    zip.file("template.liquid", "<p>{% if a %}</p>");
    const refused = await upload(await zip.generateAsync({ type: "nodebuffer" }), csrfOf(await pageOf("/designs")));
    expect(refused.status).toBe(422);
    expect(await refused.text()).toMatch(/template\.liquid:1:\d+: tag \{% if a %\} not closed/);
  });

  it("saves the draft and publishes it with the forms; a stale expected version is 409, not an overwrite", async () => {
    const editor = await pageOf(`/designs/${designId}`);
    const csrf = csrfOf(editor);
    const textarea = (name: string) =>
      new RegExp(`<textarea id="src-${name}"[^>]*>([\\s\\S]*?)</textarea>`).exec(editor)![1]!.replace(/&quot;/g, '"');
    const fields = {
      csrf,
      template: "<h1>{{ recipientName }}</h1><p>NO SCRIPT</p>",
      style: "",
      parameters: textarea("parameters").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"),
      sampleParams: textarea("sampleParams").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"),
      pageSize: "A4",
      orientation: "landscape",
      marginTop: "0mm",
      marginRight: "0mm",
      marginBottom: "0mm",
      marginLeft: "0mm",
    };
    const saved = await asAdmin(`/designs/${designId}/draft`, form(fields));
    expect(saved.status).toBe(303);
    expect(await pageOf(`/designs/${designId}`)).toContain("NO SCRIPT");
    const published = await asAdmin(
      `/designs/${designId}/publish`,
      form({ csrf, note: "from the form", expectedLatestVersion: "1" }),
    );
    expect(published.status).toBe(303);
    expect(published.headers.get("location")).toBe(`/designs/${designId}?published=2`);
    expect(await pageOf(`/designs/${designId}?published=2`)).toContain("Version 2 is published.");
    await asAdmin(`/designs/${designId}/draft`, form({ ...fields, template: "<p>again</p>" }));
    const stale = await asAdmin(
      `/designs/${designId}/publish`,
      form({ csrf, note: "stale", expectedLatestVersion: "1" }),
    );
    expect(stale.status).toBe(409);
    const staleText = await stale.text();
    expect(staleText).toContain("Someone else published version 2 first");
    // The conflict links to what the winning version changed since the draft's base.
    expect(staleText).toContain(`href="/designs/${designId}/versions?from=1&amp;to=2#diff"`);
    const audit = await listAudit(wsA, systemClock);
    const publish = audit.find((e) => e.action === "design.publish" && e.target === `${designId}@2`);
    expect(publish?.actor.via).toBe("session");
  });

  it("archives after a confirmation page; the design leaves the list and its editor is not found", async () => {
    const confirm = await pageOf(`/designs/${designId}/archive`);
    expect(confirm).toContain('id="archive-confirm"');
    expect((await asAdmin(`/designs/${designId}/archive`, form({}))).status).toBe(403);
    const archived = await asAdmin(`/designs/${designId}/archive`, form({ csrf: csrfOf(confirm) }));
    expect(archived.status).toBe(303);
    expect(await pageOf("/designs")).not.toContain(`data-design="${designId}"`);
    expect((await asAdmin(`/designs/${designId}`)).status).toBe(404);
  });
});

describe("the history page without script", () => {
  let designId: string;
  const certificate = JSON.parse(
    readFileSync(join(import.meta.dirname, "../../shared/designs/samples/certificate-en/design.json"), "utf8"),
  ) as { parameters: unknown; sampleParams: unknown };

  beforeAll(async () => {
    const created = await upload(await sampleZip("certificate-en"), csrfOf(await pageOf("/designs")));
    designId = created.headers.get("location")!.split("/").pop()!;
    const csrf = csrfOf(await pageOf(`/designs/${designId}`));
    // Version 2 changes one line of the template (with markup the page must escape) and the style.
    const put = await asAdmin(`/designs/${designId}/draft`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({
        template: '<p class="x">{{ recipientName }}</p>\n<p>second line</p>\n',
        style: "p { color: red; }\n",
        parameters: certificate.parameters,
        sampleParams: certificate.sampleParams,
      }),
    });
    expect(put.status).toBe(200);
    const published = await asAdmin(
      `/designs/${designId}/publish`,
      form({ csrf, note: "shorter <template>", expectedLatestVersion: "1" }),
    );
    expect(published.status).toBe(303);
  });

  it("lists every version newest first with who, when, the note, its sample and export", async () => {
    const history = await asAdmin(`/designs/${designId}/versions`);
    expect(history.status).toBe(200);
    const text = await history.text();
    const rows = [...text.matchAll(/<tr data-version="(\d+)">/g)].map((m) => m[1]);
    expect(rows).toEqual(["2", "1"]);
    expect(text).toContain("demo@platen.local");
    expect(text).toContain("shorter &lt;template&gt;");
    expect(text).toMatch(/<time datetime="\d{4}-\d\d-\d\dT/);
    expect(text).toContain(`src="/designs/${designId}/thumbnail?version=1"`);
    expect(text).toContain(`href="/designs/${designId}/versions/1/sample"`);
    expect(text).toContain(`href="/designs/${designId}/versions/2/bundle"`);
    expect(text).toContain('id="share-form"');
    // The designs page and the editor link here.
    expect(await pageOf("/designs")).toContain(`href="/designs/${designId}/versions"`);
    expect(await pageOf(`/designs/${designId}`)).toContain(`href="/designs/${designId}/versions"`);
  });

  it("shows the unified diff of two versions, escaped, with +/- marks and classes", async () => {
    const text = await pageOf(`/designs/${designId}/versions?from=1&to=2`);
    const template = /<pre class="diff" data-file="template.liquid">([\s\S]*?)<\/pre>/.exec(text)![1]!;
    expect(template).toContain('<span class="add">+&lt;p class=&quot;x&quot;&gt;{{ recipientName }}&lt;/p&gt;</span>');
    expect(template).toContain('<span class="add">+&lt;p&gt;second line&lt;/p&gt;</span>');
    expect(template).toMatch(/<span class="del">-\{%- comment -%\}<\/span>/);
    expect(template).toMatch(/<span class="hunk">@@ -1,\d+ \+1,2 @@<\/span>/);
    const style = /<pre class="diff" data-file="style.css">([\s\S]*?)<\/pre>/.exec(text)![1]!;
    expect(style).toContain('<span class="add">+p { color: red; }</span>');
    // The parameters did not change: no section for them.
    expect(text).not.toContain('data-file="parameters"');
    expect(await pageOf(`/designs/${designId}/versions?from=2&to=2`)).toContain("No differences.");
    const bad = await pageOf(`/designs/${designId}/versions?from=0&to=9`);
    expect(bad).toContain("Choose two versions between 1 and 2.");
  });

  it("exports a version's bundle as a zip", async () => {
    const res = await asAdmin(`/designs/${designId}/versions/2/bundle`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="design-${designId}-v2.zip"`);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    expect(await zip.file("template.liquid")!.async("string")).toContain("second line");
    expect((await asAdmin(`/designs/${designId}/versions/3/bundle`)).status).toBe(404);
  });

  it("opens an older version in the editor: a POST with CSRF makes it the draft, audited", async () => {
    const history = await pageOf(`/designs/${designId}/versions`);
    const path = `/designs/${designId}/versions/1/restore`;
    expect((await asAdmin(path, form({}))).status).toBe(403);
    const restored = await asAdmin(path, form({ csrf: csrfOf(history) }));
    expect(restored.status).toBe(303);
    expect(restored.headers.get("location")).toBe(`/designs/${designId}?restored=1`);
    const editor = await pageOf(restored.headers.get("location")!);
    expect(editor).toContain("Version 1 is now the draft.");
    expect(editor).toContain("Certificate of Completion");
    expect(editor).not.toContain("second line");
    const audit = await listAudit(wsA, systemClock);
    const entry = audit.find((e) => e.action === "design.draft-save" && e.detail?.restoredFrom === "1");
    expect(entry?.target).toBe(designId);
  });

  it("pages the versions like the API: 30 a page, newest first, with links both ways", async () => {
    const csrf = csrfOf(await pageOf(`/designs/${designId}`));
    // Versions 3…31, each from a draft with a different line.
    for (let n = 3; n <= 31; n++) {
      const put = await asAdmin(`/designs/${designId}/draft`, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: JSON.stringify({
          template: `<p>{{ recipientName }} ${n}</p>\n`,
          style: "",
          parameters: certificate.parameters,
          sampleParams: certificate.sampleParams,
        }),
      });
      expect(put.status).toBe(200);
      const published = await asAdmin(
        `/designs/${designId}/publish`,
        form({ csrf, note: `v${n}`, expectedLatestVersion: String(n - 1) }),
      );
      expect(published.status).toBe(303);
    }
    const rowsOf = (text: string) => [...text.matchAll(/<tr data-version="(\d+)">/g)].map((m) => Number(m[1]));
    const first = await pageOf(`/designs/${designId}/versions`);
    expect(rowsOf(first)).toEqual(Array.from({ length: 30 }, (_, i) => 31 - i));
    expect(first).toContain(`href="/designs/${designId}/versions?page=2"`);
    const second = await pageOf(`/designs/${designId}/versions?page=2`);
    expect(rowsOf(second)).toEqual([1]);
    expect(second).toContain(`href="/designs/${designId}/versions?page=1"`);
  });

  it("lets a READ member read the history, diff and export, never restore or share; another workspace gets 404", async () => {
    const reader = identity.cookie("reader");
    const history = await site("GET", `/designs/${designId}/versions?from=1&to=2`, { cookie: reader });
    expect(history.status).toBe(200);
    expect(history.text).toContain('class="add"');
    expect(history.text).not.toContain("/restore");
    expect(history.text).not.toContain('id="share-form"');
    expect((await site("GET", `/designs/${designId}/versions/1/bundle`, { cookie: reader })).status).toBe(200);
    const editor = await site("GET", `/designs/${designId}`, { cookie: reader });
    const csrf = /data-csrf="([^"]+)"/.exec(editor.text)![1]!;
    const restore = await site("POST", `/designs/${designId}/versions/1/restore`, { cookie: reader, form: { csrf } });
    expect(restore.status).toBe(403);
    const share = await site("POST", `/designs/${designId}/share`, { cookie: reader, form: { csrf, version: "1" } });
    expect(share.status).toBe(403);
    const outsider = identity.cookie("outsider");
    for (const path of [`/designs/${designId}/versions`, `/designs/${designId}/versions/1/bundle`])
      expect((await site("GET", path, { cookie: outsider })).status).toBe(404);
    expect((await site("GET", `/designs/${designId}/versions`)).status).toBe(303);
  });
});

describe("the template gallery without script", () => {
  const cards = (text: string) => [...text.matchAll(/<li data-template="(\w+)">\s*<h3>([^<]*)<\/h3>/g)];

  it("lets anyone browse, search and filter by tag, with thumbnails and a login link instead of the copy form", async () => {
    const all = await site("GET", "/templates");
    expect(all.status).toBe(200);
    expect(cards(all.text).length).toBeGreaterThanOrEqual(3);
    expect(all.text).not.toContain("/use");
    expect(all.text).toContain(`href="/login?return_to=${encodeURIComponent("/templates")}"`);
    const certificate = cards(all.text).find((c) => c[2]!.startsWith("Certificate"))![1]!;
    expect(all.text).toContain(`src="/templates/${certificate}/thumbnail"`);
    const png = await site("GET", `/templates/${certificate}/thumbnail`);
    expect(png.status).toBe(200);
    expect(png.headers["content-type"]).toBe("image/png");
    const searched = cards((await site("GET", "/templates?q=certif")).text);
    expect(searched.map((c) => c[1])).toEqual([certificate]);
    const tagged = cards((await site("GET", "/templates?tag=barcode")).text);
    expect(tagged.map((c) => c[2])).toEqual([expect.stringMatching(/^Shipping label/)]);
    expect((await site("GET", "/templates?q=nothing-like-this")).text).toContain("No template matches.");
    expect((await site("GET", "/templates/nope/thumbnail")).status).toBe(404);
    const japanese = await site("GET", "/templates?q=nothing-like-this", { headers: { "accept-language": "ja" } });
    expect(japanese.text).toContain("テンプレートギャラリー");
    expect(japanese.text).toContain("一致するテンプレートはありません。");
  });

  it("copies a template into the ADMIN's workspace and opens the editor (CSRF, audited); READ members and other workspaces may not", async () => {
    const gallery = await pageOf("/templates");
    const [, templateId] = cards(gallery).find((c) => c[2]!.startsWith("Certificate"))!;
    expect(gallery).toContain(`action="/templates/${templateId}/use"`);
    const path = `/templates/${templateId}/use`;
    expect((await asAdmin(path, form({ workspace: wsA }))).status).toBe(403);
    const used = await asAdmin(path, form({ workspace: wsA, csrf: csrfOf(gallery) }));
    expect(used.status).toBe(303);
    const designId = used.headers.get("location")!.split("/").pop()!;
    expect(await pageOf(`/designs/${designId}`)).toContain("Certificate of Completion");
    const audit = await listAudit(wsA, systemClock);
    expect(audit.find((e) => e.action === "design.create" && e.target === designId)?.detail?.fromTemplate).toBe(
      templateId,
    );
    const reader = identity.cookie("reader");
    const readerPage = await site("GET", "/templates", { cookie: reader });
    expect(readerPage.text).toContain("Copying a template needs the ADMIN role");
    const readerCsrf = /data-csrf="([^"]+)"/.exec(
      (await site("GET", `/designs/${seeded}`, { cookie: reader })).text,
    )![1]!;
    expect((await site("POST", path, { cookie: reader, form: { csrf: readerCsrf, workspace: wsA } })).status).toBe(403);
    const outsider = identity.cookie("outsider");
    const outsiderPage = await site("GET", "/templates", { cookie: outsider });
    const outsiderCsrf = csrfOf(outsiderPage.text);
    expect((await site("POST", path, { cookie: outsider, form: { csrf: outsiderCsrf, workspace: wsA } })).status).toBe(
      404,
    );
    const anonymous = await site("POST", path, { form: { workspace: wsA } });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toMatch(/^\/login\?return_to=/);
  });

  it("shares a version from the history page and withdraws it from the gallery, both audited; another workspace's is not found", async () => {
    const created = await upload(await sampleZip("certificate-en"), csrfOf(await pageOf("/designs")));
    const designId = created.headers.get("location")!.split("/").pop()!;
    const history = await pageOf(`/designs/${designId}/versions`);
    const csrf = csrfOf(history);
    const refused = await asAdmin(`/designs/${designId}/share`, form({ csrf, version: "1", tags: "x".repeat(41) }));
    expect(refused.status).toBe(422);
    const shared = await asAdmin(
      `/designs/${designId}/share`,
      form({ csrf, version: "1", description: "Shared <from> the site", tags: "site-shared, award" }),
    );
    expect(shared.status).toBe(303);
    expect(shared.headers.get("location")).toBe(`/designs/${designId}/versions?shared=1`);
    const gallery = await pageOf("/templates?tag=site-shared");
    const [[, templateId]] = cards(gallery) as [RegExpExecArray];
    expect(gallery).toContain("Shared &lt;from&gt; the site");
    expect(gallery).toContain(`href="/templates/${templateId}/withdraw"`);
    const audit = await listAudit(wsA, systemClock);
    expect(audit.find((e) => e.action === "template.share" && e.target === templateId)?.detail?.designId).toBe(
      designId,
    );
    const outsider = identity.cookie("outsider");
    const outsiderCsrf = csrfOf((await site("GET", "/templates", { cookie: outsider })).text);
    const foreign = await site("POST", `/templates/${templateId}/withdraw`, {
      cookie: outsider,
      form: { csrf: outsiderCsrf },
    });
    expect(foreign.status).toBe(404);
    expect((await site("GET", `/templates/${templateId}/withdraw`, { cookie: outsider })).status).toBe(404);
    expect((await site("GET", `/templates/${templateId}/withdraw`, { cookie: identity.cookie("reader") })).status).toBe(
      403,
    );
    // Withdrawing asks first, as archiving does.
    const confirm = await pageOf(`/templates/${templateId}/withdraw`);
    expect(confirm).toContain('id="withdraw-confirm"');
    expect((await asAdmin(`/templates/${templateId}/withdraw`, form({}))).status).toBe(403);
    const withdrawn = await asAdmin(`/templates/${templateId}/withdraw`, form({ csrf: csrfOf(confirm) }));
    expect(withdrawn.status).toBe(303);
    expect(await pageOf("/templates?tag=site-shared")).toContain("No template matches.");
    const after = await listAudit(wsA, systemClock);
    expect(after.some((e) => e.action === "template.withdraw" && e.target === templateId)).toBe(true);
  });

  it("reads the gallery a page at a time: 30 cards, then the next page by its cursor; the designs page offers the first page", async () => {
    // More than a page: copies of a seeded template (nothing renders), each shared from its history page.
    const gallery = await pageOf("/templates");
    const [, original] = cards(gallery)[0]!;
    const csrf = csrfOf(gallery);
    const copies: string[] = [];
    for (let i = 0; i < 30; i++) {
      const copied = await asAdmin(`/templates/${original}/use`, form({ csrf, workspace: wsA }));
      expect(copied.status).toBe(303);
      const designId = copied.headers.get("location")!.split("/").pop()!;
      copies.push(designId);
      const shared = await asAdmin(`/designs/${designId}/share`, form({ csrf, version: "1", tags: "paged" }));
      expect(shared.status).toBe(303);
    }
    const first = await pageOf("/templates");
    expect(cards(first)).toHaveLength(30);
    const next = /<a href="\/templates\?cursor=(\w+)" rel="next">/.exec(first)?.[1];
    expect(next).toBeDefined();
    const second = await pageOf(`/templates?cursor=${next}`);
    const ids = (text: string) => cards(text).map((c) => c[1]);
    expect(ids(second).length).toBeGreaterThan(0);
    expect(ids(second).filter((id) => ids(first).includes(id))).toEqual([]);
    expect(second).toContain('<a href="/templates" rel="first">');
    // A search keeps its terms across pages.
    const tagged = await pageOf("/templates?tag=paged");
    expect(tagged).toMatch(/<a href="\/templates\?tag=paged&amp;cursor=\w+" rel="next">/);
    // The designs page offers the gallery's first page only, and links to the gallery for the rest.
    const designs = await pageOf("/designs");
    const options = /<select id="create-template-id" name="templateId">(.*?)<\/select>/s.exec(designs)?.[1] ?? "";
    expect([...options.matchAll(/<option /g)]).toHaveLength(30);
    expect(designs).toContain('<a href="/templates">');
    // The copies go again, so the workspace's designs page shows its own designs first for the next cases.
    for (const designId of copies)
      expect((await asAdmin(`/designs/${designId}/archive`, form({ csrf }))).status).toBe(303);
  });
});

describe("the studio's access rules", () => {
  it("sends anonymous visitors to the login page and refuses their script calls", async () => {
    const page = await site("GET", `/designs/${seeded}`);
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe(`/login?return_to=${encodeURIComponent(`/designs/${seeded}`)}`);
    expect((await site("GET", `/designs/${seeded}/draft`)).status).toBe(401);
  });

  it("lets a READ member see the designs and the editor, never change them", async () => {
    const reader = identity.cookie("reader");
    const list = await site("GET", "/designs", { cookie: reader });
    expect(list.status).toBe(200);
    expect(list.text).toContain(`data-design="${seeded}"`);
    expect(list.text).not.toContain('id="create-blank"');
    const editor = await site("GET", `/designs/${seeded}`, { cookie: reader });
    expect(editor.status).toBe(200);
    expect(editor.text).not.toContain('id="publish-form"');
    const csrf = /data-csrf="([^"]+)"/.exec(editor.text)![1]!;
    const create = await site("POST", "/designs", { cookie: reader, form: { csrf, workspace: wsA, kind: "blank" } });
    expect(create.status).toBe(403);
    const put = await site("PUT", `/designs/${seeded}/draft`, {
      cookie: reader,
      body: JSON.stringify({ template: "x", style: "", parameters: [] }),
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
    });
    expect(put.status).toBe(403);
    expect(JSON.parse(put.text).code).toBe("WORKSPACE_ROLE_DENIED");
    const publish = await site("POST", `/designs/${seeded}/publish`, {
      cookie: reader,
      form: { csrf, expectedLatestVersion: "1" },
    });
    expect(publish.status).toBe(403);
    expect((await site("POST", `/designs/${seeded}/archive`, { cookie: reader, form: { csrf } })).status).toBe(403);
  });

  it("answers another workspace's design as not found, pages and script calls alike", async () => {
    const outsider = identity.cookie("outsider");
    expect((await site("GET", `/designs/${seeded}`, { cookie: outsider })).status).toBe(404);
    expect((await site("GET", `/designs/${seeded}/thumbnail`, { cookie: outsider })).status).toBe(404);
    const draft = await site("GET", `/designs/${seeded}/draft`, { cookie: outsider });
    expect(draft.status).toBe(404);
    expect(JSON.parse(draft.text).code).toBe("DESIGN_NOT_FOUND");
  });

  it("refuses a script call without the CSRF header", async () => {
    const res = await asAdmin(`/designs/${seeded}/draft`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ template: "x", style: "", parameters: [] }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("ACCESS_DENIED");
  });

  it("serves the editor with script-src 'self' and a style nonce, every other page without script", async () => {
    const editor = await asAdmin(`/designs/${seeded}`);
    const csp = editor.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/style-src 'self' 'nonce-[\w-]+'/);
    const script = /<script src="(\/assets\/js\/editor\.[0-9a-f]{16}\.js)" defer><\/script>/.exec(
      await editor.text(),
    )![1]!;
    // A static file the gateway serves (a bucket behind CloudFront in AWS), not the site function.
    const asset = await asAdmin(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const js = Buffer.from(await asset.arrayBuffer());
    expect(
      js.equals(readFileSync(join(import.meta.dirname, "../..", siteStaticAssets.dir, script.split("/").at(-1)!))),
    ).toBe(true);
    expect(js.toString()).toContain("cm-editor"); // CodeMirror's own class: the editor bundle itself
    // A well-formed name no build wrote is the site's 404 page, as any unknown address.
    const unknown = await asAdmin(script.replace(/\.[0-9a-f]{16}\.js$/, ".0000000000000000.js"));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toMatch(/^text\/html/);
    const list = await asAdmin("/designs");
    expect(list.headers.get("content-security-policy")).not.toContain("script-src");
    expect(await list.text()).not.toContain("<script");
  });
});
