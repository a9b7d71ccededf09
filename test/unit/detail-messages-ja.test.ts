import { describe, expect, it } from "vitest";
import { authorizeDesigns } from "#shared/auth/design-access.ts";
import { authorizeManagement, type ManagementCaller } from "#shared/auth/management-access.ts";
import { rawFromFiles, rawFromJsonForm } from "#shared/authoring/bundle-codec.ts";
import { BundleInvalid, checkBundle } from "#shared/authoring/bundle-rules.ts";
import { readBundleBody } from "#shared/authoring/design-lifecycle.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { checkEnabled, checkEndpointUrl, resolveDesignFilter } from "#shared/webhooks/endpoint-input.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";

/**
 * Details written by hand (not by zod's locales) are the ones that forget their Japanese: every
 * error of the access rules, the webhook endpoint input and the bundle checks is built here and
 * shown to a Japanese client, and each detail must read in Japanese.
 */

/** Kana or kanji: a Japanese sentence has some. */
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

const ws: Workspace = {
  id: "WorkspaceAAAAAAA",
  name: "A",
  plan: "standard",
  appKeyRotatedAt: "2026-01-01T00:00:00.000Z",
  createdAt: "2026-01-01T00:00:00.000Z",
};
const token = (extra: Partial<ManagementCaller> = {}): ManagementCaller => ({
  workspace: ws,
  method: "bearer",
  userId: "user-1",
  clientId: "client-A",
  scopes: ["openid", "pdf:generate", "designs:read"],
  grant: "authorization_code",
  role: "admin",
  ...extra,
});

/** The error `run` throws; the case is wrong if it throws nothing or something else. */
async function errorOf(run: () => unknown) {
  try {
    await run();
  } catch (err) {
    if (isPlatenError(err)) return err;
    throw err;
  }
  throw new Error("expected an error");
}

/** The details a Japanese client reads that have no Japanese. */
async function englishOnly(run: () => unknown): Promise<string[]> {
  const err = await errorOf(run);
  const body = buildErrorBody(err, "ja", "https://platen.example");
  expect(body.details.length).toBeGreaterThan(0);
  return body.details.map((d) => d.message).filter((m) => !JAPANESE.test(m));
}

const zipOf = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([name, text]) => [name, Buffer.from(text, "utf8")]));

const cases: Record<string, () => unknown> = {
  "management: an appkey": () => authorizeManagement({ workspace: ws, method: "appkey" }, "list-endpoints", ws.id),
  "management: a token without pdf:generate": () =>
    authorizeManagement(token({ scopes: ["openid"] }), "list-endpoints", ws.id),
  "management: a client-credentials token": () =>
    authorizeManagement(
      token({ grant: "client_credentials", userId: undefined, role: undefined }),
      "list-endpoints",
      ws.id,
    ),
  "management: not a member": () => authorizeManagement(token({ role: undefined }), "list-endpoints", ws.id),
  "management: READ where ADMIN is needed": () =>
    authorizeManagement(token({ role: "read" }), "create-endpoint", ws.id),
  "management: a session without the path's workspace": () =>
    authorizeManagement(
      { workspace: ws, method: "session", userId: "user-1", role: "admin" },
      "list-endpoints",
      undefined,
    ),
  "management: the secret over a token": () => authorizeManagement(token(), "read-secret", ws.id),
  "design: an appkey": () => authorizeDesigns({ workspace: ws, method: "appkey" }, "designs:read"),
  "design: a token without a design scope": () => authorizeDesigns(token({ scopes: ["openid"] }), "designs:write"),
  "design: not a member": () => authorizeDesigns(token({ role: undefined }), "designs:read"),
  "design: READ where ADMIN is needed": () => authorizeDesigns(token({ role: "read" }), "designs:write"),
  "webhook: no url": () => checkEndpointUrl(undefined, "prod"),
  "webhook: a url that is not allowed": () => checkEndpointUrl("http://127.0.0.1/hook", "prod"),
  "webhook: a design filter of another kind": () => resolveDesignFilter({ designFilterType: "some" as "all" }),
  "webhook: ids that are not an array": () => resolveDesignFilter({ targetDesignIds: "d1" as unknown as string[] }),
  "webhook: an id that is not an id": () => resolveDesignFilter({ targetDesignIds: [""] }),
  "webhook: too many ids": () =>
    resolveDesignFilter({ targetDesignIds: Array.from({ length: 101 }, (_, i) => `d${i}`) }),
  "webhook: enabled not a boolean": () => checkEnabled("yes", true),
  "bundle JSON form: unknown fields, no template, bad style and assets": () =>
    rawFromJsonForm({ extra: 1, style: 2, assets: { "../x.png": "aGk=", "logo.exe": "aGk=", "a.png": "!!" } }),
  "bundle JSON form: assets not an object": () => rawFromJsonForm({ template: "", assets: [] }),
  "bundle files: no design.json or template, a stray file": () => rawFromFiles(zipOf({ "notes.txt": "" })),
  "bundle files: design.json that is not JSON": () =>
    rawFromFiles(zipOf({ "design.json": "{", "template.liquid": "" })),
  "bundle checks: manifest rules, Liquid syntax, missing assets": () => {
    const manifest = {
      label: "L",
      page: { width: "210mm" },
      parameters: [
        { name: "rows", type: "array", label: "Rows" },
        { name: "n", type: "text", label: "N", spec: [{ name: "x", type: "text", label: "X" }] },
        { name: "n", type: "text", label: "N" },
      ],
    };
    const { problems } = checkBundle({
      manifest,
      manifestText: JSON.stringify(manifest),
      template: '{% if %}<img src="assets/missing.png">',
      css: "",
      assets: {},
    });
    throw new BundleInvalid(problems);
  },
  "bundle checks: sample params that do not fit": () => {
    const manifest = {
      label: "L",
      parameters: [{ name: "rows", type: "array", label: "Rows", spec: [{ name: "x", type: "text", label: "X" }] }],
      sampleParams: { rows: [1] },
    };
    const { problems } = checkBundle({
      manifest,
      manifestText: JSON.stringify(manifest),
      template: "",
      css: "",
      assets: {},
    });
    expect(problems.map((p) => p.field)).toEqual(["sampleParams.rows.0"]);
    throw new BundleInvalid(problems);
  },
  "design body: an empty zip": () =>
    readBundleBody({ contentType: "application/zip", bytes: Buffer.alloc(0), query: () => undefined }),
  "design body: a zip with a bad note": () =>
    readBundleBody({ contentType: "application/zip", bytes: Buffer.from("PK"), query: () => "x".repeat(1001) }),
  "design body: not JSON": () => readBundleBody({ bytes: Buffer.from("{"), query: () => undefined }),
  "design body: JSON that is not an object": () => readBundleBody({ bytes: Buffer.from("[]"), query: () => undefined }),
  "design body: from with more": () =>
    readBundleBody({ bytes: Buffer.from('{"from":"draft","label":"x"}'), query: () => undefined }),
  "design body: fromTemplate not a string": () =>
    readBundleBody({ bytes: Buffer.from('{"fromTemplate":1}'), query: () => undefined }),
  "design body: a note that is too long": () =>
    readBundleBody({
      bytes: Buffer.from(JSON.stringify({ from: "draft", note: "x".repeat(1001) })),
      query: () => undefined,
    }),
};

describe("hand-written details have Japanese", () => {
  it.each(Object.keys(cases))("%s", async (name) => {
    expect(await englishOnly(cases[name]!)).toEqual([]);
  });
});
