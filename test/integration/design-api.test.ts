import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { bundleZip } from "#shared/authoring/bundle-codec.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { designApi, jsonDesign } from "../helpers/design-fixtures.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { api, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { compactPdfText, inspectPdf } from "../helpers/pdf-inspect.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, sampleDir, type Tenant } from "../helpers/sync-fixtures.ts";
import { fileRecordsOfWorkspace } from "../helpers/stack-clients.ts";
import { pagesUsedNow } from "../helpers/limits-stack.ts";
import { authOrigin } from "../helpers/oauth-http.ts";

/**
 * The design API over HTTP against the local stack (shared/authoring/README.md): create in
 * the three body forms, versions and their round trip, validation with file/line/column,
 * drafts, publish conflicts and races, preview, archive. The caller is a client-credentials
 * token with designs:write (the CI-pipeline case); who-may-call rows are in design-access.test.ts.
 */

let stack: SharedStack;
let call: ReturnType<typeof designApi>;
let tenant: Tenant;
let writer: { token: string };

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  call = designApi(stack);
  tenant = await createTenant(stack, "design api");
  const client = await makeConfidentialClient(tenant.workspaceId, ["designs:read", "designs:write", "pdf:generate"]);
  writer = { token: await clientCredentialsToken(stack, client, "designs:read designs:write pdf:generate") };
});

afterAll(() => stack?.release());

async function create(label: string, extra: Record<string, unknown> = {}) {
  const res = await call("POST", "/designs", writer, jsonDesign(label, extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; latestVersion: number };
}

describe("creating a design", () => {
  it("from the JSON form: 201 with the detail, version 1, a thumbnail, no draft", async () => {
    const res = await call("POST", "/designs", writer, jsonDesign("JSON form"));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      label: "JSON form",
      description: "JSON form for tests",
      latestVersion: 1,
      hasDraft: false,
    });
    expect(res.body.id).toMatch(/^[0-9A-Za-z]{16}$/);
    const thumb = await api(stack, tenant.appKey)(`/file/designs/${res.body.id}/thumbnail?version=1`);
    expect(thumb.status).toBe(200);
    expect(
      Buffer.from(await thumb.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
    const detail = await call("GET", `/designs/${res.body.id}`, writer);
    expect(detail.body).toEqual(res.body);
  });

  it("from a bundle zip (the admin CLI's folder layout), and the design generates", async () => {
    const zip = await bundleZip(await loadBundleFromDir(sampleDir("shipping-label")));
    const res = await call("POST", "/designs", writer, zip);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.label).toBe("Shipping label (4 × 6 in)");
    const params = await api(stack, tenant.appKey)(`/file/design/parameter/${res.body.id}`);
    expect(params.status).toBe(200);
    expect((await params.json()).length).toBeGreaterThan(0);
  });

  it("writes an audit entry per change, naming the caller", async () => {
    const { id } = await create("Audited");
    await call("PATCH", `/designs/${id}`, writer, { description: "changed" });
    const entries = await listAudit(tenant.workspaceId, systemClock);
    const mine = entries.filter((e) => e.target?.startsWith(id));
    expect(mine.map((e) => e.action).sort()).toEqual(["design.create", "design.update"]);
    expect(mine[0]!.actor.via).toBe("bearer");
  });
});

describe("versions", () => {
  it("publish N+1 with a note; list newest first with who, when, note and sha256; detail adds the schema", async () => {
    const { id } = await create("Versioned");
    const v2 = await call("POST", `/designs/${id}/versions`, writer, {
      ...jsonDesign("Versioned", { template: "<h1>v2 {{ title }}</h1>" }),
      note: "second",
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    expect(v2.body).toMatchObject({ id, version: 2 });
    const list = await call("GET", `/designs/${id}/versions`, writer);
    expect(list.status).toBe(200);
    expect(list.body.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(list.body.versions[0]).toMatchObject({ note: "second", createdBy: "Test integration" });
    expect(list.body.versions[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(list.body.versions[0].sha256).not.toBe(list.body.versions[1].sha256);
    const detail = await call("GET", `/designs/${id}/versions/2`, writer);
    expect(detail.body).toMatchObject({ version: 2, note: "second", sampleParams: { title: "Hello", body: "World" } });
    expect(detail.body.parameters.map((p: { name: string }) => p.name)).toEqual(["title", "body"]);
    expect(detail.body.page).toMatchObject({ size: "A4", orientation: "portrait" });
    expect((await call("GET", `/designs/${id}`, writer)).body.latestVersion).toBe(2);
  });

  it("round trip: export a version as a zip, publish it again, same sha256", async () => {
    const { id } = await create("Round trip", {
      assets: {
        "logo.svg": Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>').toString("base64"),
      },
      template: '<img src="assets/logo.svg"><h1>{{ title }}</h1>',
    });
    const zip = await call("GET", `/designs/${id}/versions/1/bundle`, writer);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    const again = await call("POST", `/designs/${id}/versions`, writer, zip.bytes);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const list = await call("GET", `/designs/${id}/versions`, writer);
    const [v2, v1] = list.body.versions;
    expect(v2.sha256).toBe(v1.sha256);
    // The same bundle zips to the same bytes, whatever version it was published as.
    expect((await call("GET", `/designs/${id}/versions/2/bundle`, writer)).bytes).toEqual(zip.bytes);
  });

  it("expectedLatestVersion: a stale one answers 409 DESIGN_VERSION_CONFLICT naming the version that won", async () => {
    const { id } = await create("Conflict");
    const ok = await call("POST", `/designs/${id}/versions`, writer, {
      ...jsonDesign("Conflict"),
      expectedLatestVersion: 1,
    });
    expect(ok.status).toBe(201);
    const stale = await call("POST", `/designs/${id}/versions`, writer, {
      ...jsonDesign("Conflict"),
      expectedLatestVersion: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("DESIGN_VERSION_CONFLICT");
    expect(stale.body.details[0].latestVersion).toBe(2);
  });

  it("concurrent publishes: numbers contiguous without expectedLatestVersion; exactly one wins per expected version", async () => {
    const { id } = await create("Race");
    const free = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call("POST", `/designs/${id}/versions`, writer, jsonDesign("Race", { template: `<p>${i}</p>` })),
      ),
    );
    expect(free.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(free.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    const guarded = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call("POST", `/designs/${id}/versions`, writer, {
          ...jsonDesign("Race", { template: `<p>g${i}</p>` }),
          expectedLatestVersion: 7,
        }),
      ),
    );
    expect(guarded.filter((r) => r.status === 201)).toHaveLength(1);
    expect(guarded.filter((r) => r.status === 409)).toHaveLength(4);
    for (const r of guarded.filter((r) => r.status === 409)) expect(r.body.details[0].latestVersion).toBe(8);
    const list = await call("GET", `/designs/${id}/versions`, writer);
    expect(list.body.versions.map((v: { version: number }) => v.version)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
  });
});

describe("validation: 422 DESIGN_BUNDLE_INVALID naming file, line and column", () => {
  const problemsOf = async (body: unknown) => {
    const res = await call("POST", "/designs", writer, body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code).toBe("DESIGN_BUNDLE_INVALID");
    return res.body.details as { file: string; field?: string; line?: number; column?: number; message: string }[];
  };

  it("a Liquid syntax error, at its line and column", async () => {
    const [d] = await problemsOf(jsonDesign("Bad liquid", { template: "<h1>ok</h1>\n  {% if title %}open" }));
    expect(d).toMatchObject({ file: "template.liquid", line: 2, column: 3 });
    expect(d!.message).toMatch(/not closed/);
  });

  it("an unknown filter is a syntax error too", async () => {
    const [d] = await problemsOf(jsonDesign("Bad filter", { template: "{{ title | shout }}" }));
    expect(d).toMatchObject({ file: "template.liquid", line: 1 });
    expect(d!.message).toMatch(/undefined filter: shout/);
  });

  it("parameter schema errors, sampleParams that do not fit, an unknown page size", async () => {
    const details = await problemsOf(
      jsonDesign("Bad schema", {
        parameters: [
          { name: "title", type: "image", label: "Title" },
          { name: "rows", type: "array", label: "Rows" },
        ],
        page: { size: "A9" },
      }),
    );
    const fields = details.map((d) => `${d.file}:${d.field}`);
    expect(fields).toEqual(
      expect.arrayContaining([
        "design.json:parameters.0.type",
        "design.json:parameters.1.spec",
        "design.json:page.size",
      ]),
    );
    const sample = await problemsOf(jsonDesign("Bad sample", { sampleParams: { title: 42 } }));
    expect(sample[0]).toMatchObject({ file: "design.json", field: "sampleParams.title" });
  });

  it("design.json in a zip: the line and column of the bad field", async () => {
    const bundle = await loadBundleFromDir(sampleDir("certificate-en"));
    const zip = await bundleZip({
      ...bundle,
      manifest: { ...bundle.manifest, page: { ...bundle.manifest.page, size: "Z1" as "A4" } },
    });
    const [d] = await problemsOf(zip);
    expect(d).toMatchObject({ file: "design.json", field: "page.size" });
    expect(d!.line).toBeGreaterThan(1);
    expect(d!.column).toBeGreaterThan(1);
  });

  it("an asset the template names but the bundle lacks; an asset that is not an image or a font", async () => {
    const missing = await problemsOf(jsonDesign("No logo", { template: '<p>x</p>\n<img src="assets/logo.png">' }));
    expect(missing[0]).toMatchObject({ file: "template.liquid", line: 2, column: 11 });
    expect(missing[0]!.message).toContain("assets/logo.png");
    const script = await problemsOf(
      jsonDesign("Script", { assets: { "run.js": Buffer.from("x").toString("base64") } }),
    );
    expect(script[0]).toMatchObject({ file: "assets/run.js" });
  });

  it("assets over the limits: one over 5 MB, more than 100", async () => {
    const big = await problemsOf(
      jsonDesign("Big", { assets: { "big.png": Buffer.alloc(5 * 1024 * 1024 + 1).toString("base64") } }),
    );
    expect(big[0]).toMatchObject({ file: "assets/big.png" });
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`a${i}.png`, "iVBORw0KGgo="]));
    const tooMany = await problemsOf(jsonDesign("Many", { assets: many }));
    expect(tooMany.some((d) => /more than 100 assets/.test(d.message))).toBe(true);
  });

  it("a sample document over the document limits (rendered at publish)", async () => {
    const details = await problemsOf(
      jsonDesign("Long", {
        template: "{% for i in (1..3000) %}<p style='break-after: page'>{{ i }}</p>{% endfor %}",
      }),
    );
    expect(details[0]).toMatchObject({
      file: "design.json",
      field: "sampleParams",
      code: "DOCUMENT_PAGE_LIMIT_EXCEEDED",
    });
  });

  it("a body that is neither a zip nor a JSON object: 400 VALIDATION_FAILED; a broken zip: 422", async () => {
    expect((await call("POST", "/designs", writer, "not json")).status).toBe(400);
    expect((await call("POST", "/designs", writer, [1, 2])).status).toBe(400);
    const broken = await call("POST", "/designs", writer, Buffer.from("PK\u0003\u0004 not really"));
    expect(broken.status).toBe(422);
    expect(broken.body.details[0].file).toBe("(zip)");
  });

  it("nothing is stored by a refused create", async () => {
    const before = (await call("GET", "/designs?q=Refused", writer)).body.total;
    await problemsOf(jsonDesign("Refused", { template: "{% if %}" }));
    expect((await call("GET", "/designs?q=Refused", writer)).body.total).toBe(before);
  });
});

describe("drafts", () => {
  it("PUT keeps the working copy and answers its problems as warnings; GET restores it; publish from draft", async () => {
    const { id } = await create("Drafted");
    const broken = await call("PUT", `/designs/${id}/draft`, writer, jsonDesign("Drafted", { template: "{% if x %}" }));
    expect(broken.status).toBe(200);
    expect(broken.body.warnings[0]).toMatchObject({ file: "template.liquid", line: 1 });
    expect((await call("GET", `/designs/${id}`, writer)).body.hasDraft).toBe(true);
    const strict = await call("POST", `/designs/${id}/versions`, writer, { from: "draft" });
    expect(strict.status).toBe(422);
    const good = jsonDesign("Drafted", { template: "<h2>{{ title }} (draft)</h2>" });
    expect((await call("PUT", `/designs/${id}/draft`, writer, good)).body.warnings).toEqual([]);
    const read = await call("GET", `/designs/${id}/draft`, writer);
    expect(read.body.draft.template).toBe(good.template);
    expect(read.body.draft.parameters).toEqual(good.parameters);
    const published = await call("POST", `/designs/${id}/versions`, writer, { from: "draft", note: "from the draft" });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    expect((await call("GET", `/designs/${id}`, writer)).body.hasDraft).toBe(false);
    expect((await call("GET", `/designs/${id}/draft`, writer)).status).toBe(404);
  });

  it("a draft saved while a publish from the draft runs is kept", async () => {
    const { id } = await create("Busy draft");
    await call("PUT", `/designs/${id}/draft`, writer, jsonDesign("Busy draft", { template: "<p>one</p>" }));
    const [published, saved] = await Promise.all([
      call("POST", `/designs/${id}/versions`, writer, { from: "draft" }),
      // Saved after the publish read the draft (the publish renders a thumbnail first).
      new Promise((r) => setTimeout(r, 30)).then(() =>
        call("PUT", `/designs/${id}/draft`, writer, jsonDesign("Busy draft", { template: "<p>two</p>" })),
      ),
    ]);
    expect(published.status).toBe(201);
    expect(saved.status).toBe(200);
    const draft = await call("GET", `/designs/${id}/draft`, writer);
    expect(draft.status).toBe(200);
    expect(draft.body.draft.template).toBe("<p>two</p>");
  });

  it("DELETE discards it (204, also when there is none)", async () => {
    const { id } = await create("Discard");
    await call("PUT", `/designs/${id}/draft`, writer, jsonDesign("Discard"));
    expect((await call("DELETE", `/designs/${id}/draft`, writer)).status).toBe(204);
    expect((await call("DELETE", `/designs/${id}/draft`, writer)).status).toBe(204);
    expect((await call("GET", `/designs/${id}`, writer)).body.hasDraft).toBe(false);
  });
});

describe("preview", () => {
  it("renders a marked PDF of a version, the draft or a bundle; nothing billed or stored", async () => {
    const { id } = await create("Previewed");
    await call(
      "PUT",
      `/designs/${id}/draft`,
      writer,
      jsonDesign("Previewed", { template: "<h1>DRAFT {{ title }}</h1>" }),
    );
    await settled(stack);
    const pagesBefore = await pagesUsedNow(stack, tenant.workspaceId);
    const filesBefore = (await fileRecordsOfWorkspace(tenant.workspaceId)).length;
    for (const body of [
      { designId: id, version: 1 },
      { designId: id, draft: true },
      { bundle: jsonDesign("Inline"), params: { title: "Inline title" } },
    ]) {
      const res = await call("POST", "/designs/preview", writer, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      const text = await compactPdfText(res.bytes);
      expect(text).toContain("PREVIEW");
      expect((await inspectPdf(res.bytes)).pageCount).toBe(1);
    }
    const draftText = await compactPdfText(
      (await call("POST", "/designs/preview", writer, { designId: id, draft: true })).bytes,
    );
    expect(draftText).toContain("DRAFTHello");
    await settled(stack);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(pagesBefore);
    expect((await fileRecordsOfWorkspace(tenant.workspaceId)).length).toBe(filesBefore);
  });

  it("?format=png&page=N: one page as an image; a page past the end is 400", async () => {
    const { id } = await create("Two pages", {
      template: "<h1>{{ title }}</h1><div style='break-before: page'>{{ body }}</div>",
    });
    const png = await call("POST", "/designs/preview?format=png&page=2", writer, { designId: id, version: 1 });
    expect(png.status, png.bytes.toString().slice(0, 300)).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("x-page-count")).toBe("2");
    expect(png.bytes.subarray(1, 4).toString()).toBe("PNG");
    expect(png.bytes.readUInt32BE(16)).toBe(1000); // IHDR width
    const past = await call("POST", "/designs/preview?format=png&page=3", writer, { designId: id, version: 1 });
    expect(past.status).toBe(400);
  });

  it("params that do not fit the schema: 400 PARAMS_TYPE_MISMATCH", async () => {
    const { id } = await create("Typed preview");
    const res = await call("POST", "/designs/preview", writer, { designId: id, version: 1, params: { title: 5 } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("PARAMS_TYPE_MISMATCH");
  });
});

describe("archive", () => {
  it("DELETE archives: out of lists and generation, parameters 404, versions and files kept; archived=true lists it", async () => {
    const { id } = await create("To archive");
    const generated = await api(stack, tenant.appKey)("/file/sync/single?response=json", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ designId: id, version: 1, content: { fileName: "before", params: { title: "x" } } }),
    });
    expect(generated.status).toBe(200);
    const { requestId, files } = (await generated.json()) as { requestId: string; files: { fileId: string }[] };
    expect((await call("DELETE", `/designs/${id}`, writer)).status).toBe(204);
    expect((await call("GET", `/designs/${id}`, writer)).status).toBe(404);
    expect((await call("DELETE", `/designs/${id}`, writer)).status).toBe(404);
    const list = await call("GET", "/designs?q=To%20archive", writer);
    expect(list.body.total).toBe(0);
    const archived = await call("GET", "/designs?q=To%20archive&archived=true", writer);
    expect(archived.body.designs).toEqual([expect.objectContaining({ id, archived: true })]);
    const again = await api(stack, tenant.appKey)("/file/sync/single", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ designId: id, version: 1, content: { fileName: "after", params: {} } }),
    });
    expect(again.status).toBe(404);
    expect((await again.json()).code).toBe("DESIGN_VERSION_NOT_FOUND");
    // The version is cached and the key known (the template runs beside the design's head read):
    // the archived design still comes before the params' mismatch, single and multiple alike.
    for (const [path, body] of [
      ["/file/sync/single", { designId: id, version: 1, content: { fileName: "bad", params: { title: { x: 1 } } } }],
      ["/file/sync/multiple", { designId: id, version: 1, contents: [{ fileName: "m", params: { title: "x" } }] }],
    ] as const) {
      const refused = await api(stack, tenant.appKey)(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(refused.status, path).toBe(404);
      expect((await refused.json()).code).toBe("DESIGN_VERSION_NOT_FOUND");
    }
    expect((await api(stack, tenant.appKey)(`/file/design/parameter/${id}`)).status).toBe(404);
    const legacyList = await (await api(stack, tenant.appKey)("/file/designs")).json();
    expect(legacyList.designs.map((d: { id: string }) => d.id)).not.toContain(id);
    const download = await api(stack, tenant.appKey)(`/file/download/${requestId}/${files[0]!.fileId}`);
    expect(download.status).toBe(200);
  });
});

describe("list and PATCH", () => {
  it("q filters labels; PATCH changes label and description without a version", async () => {
    const { id } = await create("Findable Alpha");
    const found = await call("GET", "/designs?q=findable%20alpha", writer);
    expect(found.body.designs.map((d: { id: string }) => d.id)).toEqual([id]);
    expect(found.body.designs[0]).toMatchObject({
      hasDraft: false,
      archived: false,
      description: "Findable Alpha for tests",
    });
    const patched = await call("PATCH", `/designs/${id}`, writer, { label: "Renamed", description: "new" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ label: "Renamed", description: "new", latestVersion: 1 });
    expect((await call("PATCH", `/designs/${id}`, writer, {})).status).toBe(400);
    expect((await call("PATCH", `/designs/${id}`, writer, { label: "x", colour: "red" })).status).toBe(400);
  });
});

describe("text that is not well-formed Unicode", () => {
  it("is refused with 400 VALIDATION_FAILED naming the field, before anything is stored", async () => {
    const body = JSON.stringify(jsonDesign("Lone")).replace('"<h1>', '"\\ud800<h1>');
    const res = await call("POST", "/designs", writer, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.details[0].field).toBe("template");
    expect((await call("GET", "/designs?q=Lone", writer)).body.total).toBe(0);
    const { id } = await create("Lone draft");
    const draft = JSON.stringify(jsonDesign("Lone draft")).replace('"Hello"', '"\\udfffHello"');
    expect((await call("PUT", `/designs/${id}/draft`, writer, draft)).body.details[0].field).toBe("sampleParams.title");
  });
});

describe("a JSON body under another content type", () => {
  it.each([
    ["text/plain", "text/plain;charset=UTF-8"],
    ["a form type", "application/x-www-form-urlencoded"],
    ["none", undefined],
  ])("is refused with 400 VALIDATION_FAILED naming Content-Type (%s), and nothing changes", async (_name, type) => {
    const { id } = await create(`Typed ${_name}`);
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${writer.token}`, ...(type && { "content-type": type }) },
        body: new TextEncoder().encode(JSON.stringify(body)), // a Uint8Array: fetch adds no type of its own
      });
    for (const [method, path, body] of [
      ["PATCH", `/designs/${id}`, { label: "Changed" }],
      ["PUT", `/designs/${id}/draft`, jsonDesign("Changed")],
      ["POST", "/designs", jsonDesign(`Created ${_name}`)],
      ["POST", `/designs/${id}/versions`, { ...jsonDesign("Changed"), note: "v2" }],
    ] as const) {
      const res = await send(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      const answer = await res.json();
      expect(answer.code).toBe("VALIDATION_FAILED");
      expect(answer.details[0]).toMatchObject({ field: "Content-Type" });
    }
    const detail = await call("GET", `/designs/${id}`, writer);
    expect(detail.body).toMatchObject({ label: `Typed ${_name}`, latestVersion: 1, hasDraft: false });
    expect((await call("GET", `/designs?q=${encodeURIComponent(`Created ${_name}`)}`, writer)).body.total).toBe(0);
  });

  it("a +json type with parameters is JSON", async () => {
    const { id } = await create("Merge patch");
    const res = await fetch(`${stack.baseUrl}/designs/${id}`, {
      method: "PATCH",
      headers: {
        authorization: `Bearer ${writer.token}`,
        "content-type": "application/merge-patch+json; charset=utf-8",
      },
      body: JSON.stringify({ label: "Merged" }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).label).toBe("Merged");
  });
});

describe("the gallery's limits", () => {
  let owner: { token: string };
  let workspaceName: string;
  let first: string;
  const shareOf = (designId: string) => call("POST", "/templates", owner, { designId, version: 1 });

  beforeAll(async () => {
    workspaceName = "gallery limits";
    const sharing = await createTenant(stack, workspaceName);
    const scopes = "designs:read designs:write templates:read templates:write";
    const client = await makeConfidentialClient(sharing.workspaceId, scopes.split(" ") as never);
    owner = { token: await clientCredentialsToken(stack, client, scopes) };
    const design = await call("POST", "/designs", owner, jsonDesign("Gallery original"));
    const shared = await shareOf(design.body.id);
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    first = shared.body.id;
  });

  it("a fromTemplate copy's label passes the label schema: 300,000 characters is 400 VALIDATION_FAILED naming label", async () => {
    const res = await call("POST", "/designs", owner, { fromTemplate: first, label: "x".repeat(300_000) });
    expect([res.status, res.body.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(res.body.details).toEqual([expect.objectContaining({ field: "label" })]);
    const blank = await call("POST", "/designs", owner, { fromTemplate: first, label: "   " });
    expect([blank.status, blank.body.details?.[0]?.field]).toEqual([400, "label"]);
    // The same bound as PATCH and design.json: 200 characters pass, 201 do not, on each route.
    const copy = await call("POST", "/designs", owner, { fromTemplate: first, label: "y".repeat(200) });
    expect(copy.status, JSON.stringify(copy.body)).toBe(201);
    const long = "z".repeat(201);
    const answers = [
      await call("POST", "/designs", owner, { fromTemplate: first, label: long }),
      await call("PATCH", `/designs/${copy.body.id}`, owner, { label: long }),
      await call("POST", "/designs", owner, jsonDesign(long)),
    ];
    expect(answers.map((a) => [a.status, a.body.code, a.body.details?.[0]?.field])).toEqual([
      [400, "VALIDATION_FAILED", "label"],
      [400, "VALIDATION_FAILED", "label"],
      [422, "DESIGN_BUNDLE_INVALID", "label"],
    ]);
    await call("DELETE", `/designs/${copy.body.id}`, owner);
  });

  it("a workspace shares at most 50 templates: the 51st is 409 TEMPLATE_LIMIT_EXCEEDED naming the cap", async () => {
    // Copies render nothing (the template's thumbnail is reused): 50 designs quickly.
    const copies: string[] = [];
    for (let i = 0; i < 50; i += 5) {
      const made = await Promise.all(
        [0, 1, 2, 3, 4].map((j) => call("POST", "/designs", owner, { fromTemplate: first, label: `Copy ${i + j}` })),
      );
      for (const res of made) {
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        copies.push(res.body.id);
      }
    }
    for (const id of copies.slice(0, 49)) expect((await shareOf(id)).status).toBe(201);
    const refused = await shareOf(copies[49]!);
    expect([refused.status, refused.body.code]).toEqual([409, "TEMPLATE_LIMIT_EXCEEDED"]);
    expect(refused.body.message).toContain("50 templates");
    const ja = await fetch(`${stack.baseUrl}/templates`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json", "accept-language": "ja" },
      body: JSON.stringify({ designId: copies[49], version: 1 }),
    });
    expect(((await ja.json()) as { message: string }).message).toContain("最大 50 件");
    // Sharing a design again replaces its entry: never refused at the cap.
    expect((await shareOf(copies[0]!)).status).toBe(201);
    // Withdrawing frees a place.
    const withdrawn = (await shareOf(copies[1]!)).body.id;
    expect((await call("DELETE", `/templates/${withdrawn}`, owner)).status).toBe(204);
    const now = await shareOf(copies[49]!);
    expect(now.status, JSON.stringify(now.body)).toBe(201);
    expect((await shareOf(copies[1]!)).body.code).toBe("TEMPLATE_LIMIT_EXCEEDED");
  });

  it("the public list is read a page at a time: 30 a page, `next` the cursor of the next, newest share first", async () => {
    const pages: { id: string; publisher: string }[][] = [];
    let cursor: string | undefined;
    do {
      const res = await fetch(
        `${authOrigin(stack)}/public/templates${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { templates: { id: string; publisher: string }[]; next?: unknown };
      expect(body.templates.length).toBeLessThanOrEqual(30);
      pages.push(body.templates);
      expect(["string", "undefined"]).toContain(typeof body.next);
      cursor = body.next as string | undefined;
    } while (cursor && pages.length < 10);
    expect(cursor).toBeUndefined();
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]).toHaveLength(30);
    const ids = pages.flat().map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    const mine = pages.flat().filter((t) => t.publisher === workspaceName);
    expect(mine).toHaveLength(50);
    // Newest share first: the original, shared before every copy, comes after them.
    expect(ids.indexOf(first)).toBeGreaterThan(ids.indexOf(mine[0]!.id));
    const bad = await fetch(`${authOrigin(stack)}/public/templates?cursor=${encodeURIComponent("not a cursor")}`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: { field: string }[] }).details[0]!.field).toBe("cursor");
    expect((await fetch(`${authOrigin(stack)}/public/templates?page=2`)).status).toBe(400);
  });
});
