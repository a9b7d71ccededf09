import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { type DesignBundle, designManifestSchema } from "#shared/designs/bundle-schema.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { workspaceHasSigningLabel } from "#shared/signing/identity-store.ts";
import { acceptOrFail, download, pollStatus } from "../helpers/async-http.ts";
import { designApi } from "../helpers/design-fixtures.ts";
import { pagesUsedNow } from "../helpers/limits-stack.ts";
import { type RunningStack, startStack } from "../helpers/local-stack.ts";
import { makeUser, manage, sessionOf, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { type SigningFixtures, signingFixtures, trustingNssDir } from "../helpers/signing-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, syncCaller } from "../helpers/sync-http.ts";
import { startTestTsa, type TestTsa } from "../helpers/test-tsa.ts";
import { adminCliArgs } from "../helpers/local-build.ts";

const run = promisify(execFile);

/**
 * Signed documents end to end (shared/signing/README.md): identities over the management API and the admin
 * CLI, publishing a signed design, sync B-B and async B-T files that poppler's pdfsig finds valid and
 * trusted, a time-stamp authority that is down (a failed file, never an unsigned one, nothing billed), a
 * removed identity (SIGNING_FAILED naming the label), protection refused, and the file page. A stack of its
 * own: its B-T time-stamps come from this file's test TSA (PLATEN_TSA_URL).
 */

let stack: RunningStack;
let tsa: TestTsa;
let fixtures: SigningFixtures;
let nssDir: string;
let tenant: Tenant;
let call: ReturnType<typeof manage>;
let admin: string;
let reader: string;
let outsider: string;
const work = mkdtempSync(join(tmpdir(), "platen-signed-"));
const designs: Record<"bb" | "bt" | "visible" | "gone", string> = {} as never;

const identities = () => `/workspace/${tenant.workspaceId}/signing-identities`;

function signedBundle(label: string, signature: Record<string, unknown>): DesignBundle {
  return {
    manifest: designManifestSchema.parse({
      label,
      parameters: [{ name: "name", type: "text", label: "Name" }],
      signature,
    }),
    template: "<h1>修了証 Certificate</h1><p>Awarded to {{ name }}</p>",
    css: "",
    assets: {},
  };
}

async function pdfsig(pdf: Buffer): Promise<string> {
  const path = join(work, `f${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(path, pdf);
  const { stdout } = await run("pdfsig", ["-nssdir", `sql:${nssDir}`, path]).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? "",
  }));
  return stdout;
}

const addIdentity = (label: string, cookie = admin) =>
  call(
    "POST",
    identities(),
    { cookie },
    { label, pkcs12: fixtures.rsa.pkcs12.toString("base64"), password: fixtures.password },
  );

beforeAll(async () => {
  [fixtures, nssDir, tsa] = await Promise.all([signingFixtures(), trustingNssDir(), startTestTsa()]);
  stack = await startStack({ env: { PLATEN_TSA_URL: tsa.url, PLATEN_TSA_TIMEOUT_MS: "2000" } });
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  call = manage(stack);
  tenant = await createTenant(stack, "Signing");
  const other = await createTenant(stack, "Signing, other");
  admin = await sessionOf((await makeUser({ [tenant.workspaceId]: "admin" })).id);
  reader = await sessionOf((await makeUser({ [tenant.workspaceId]: "read" })).id);
  outsider = await sessionOf((await makeUser({ [other.workspaceId]: "admin" })).id);
}, 180_000);

afterAll(async () => {
  await Promise.all([stack?.stop(), tsa?.close()]);
});

describe("signing identities over the management API", () => {
  it("adds one from a PKCS#12 file (201, the certificate's facts, no key), lists it, audits it", async () => {
    const res = await addIdentity("company-seal");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      label: "company-seal",
      subject: "CN=Platen Test Signer, O=Example K.K.",
      keyAlgorithm: "RSA-2048",
    });
    expect(JSON.stringify(res.body)).not.toMatch(/PRIVATE KEY|sealed|chain/);
    const listed = await call("GET", identities(), { cookie: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: { label: string }) => i.label)).toEqual(["company-seal"]);
    const audit = await listAudit(tenant.workspaceId, systemClock);
    expect(audit.map((e) => e.action)).toContain("signing-identity.create");
  });

  it("refuses a wrong password and an expired certificate naming the field; a reader may not add; another workspace gets 403", async () => {
    const wrong = await call(
      "POST",
      identities(),
      { cookie: admin },
      { label: "x", pkcs12: fixtures.rsa.pkcs12.toString("base64"), password: "nope" },
    );
    expect([wrong.status, wrong.body.code, wrong.body.details[0].field]).toEqual([
      400,
      "VALIDATION_FAILED",
      "password",
    ]);
    const expired = await call(
      "POST",
      identities(),
      { cookie: admin },
      { label: "x", pkcs12: fixtures.expired.pkcs12.toString("base64"), password: fixtures.password },
    );
    expect([expired.status, expired.body.details[0].field]).toEqual([400, "certificate"]);
    expect((await addIdentity("by-reader", reader)).status).toBe(403);
    expect((await addIdentity("by-outsider", outsider)).status).toBe(403);
  });

  it("adds with the admin CLI, the same key file sealing what the stack opens", async () => {
    const password = join(work, "p12-password");
    writeFileSync(password, `${fixtures.password}\n`);
    const { stdout } = await run(
      process.execPath,
      await adminCliArgs(
        ...["signing-identity", "add", "--workspace", tenant.workspaceId],
        ...["--label", "cli-seal", "--pkcs12", join(fixtures.dir, "ec.p12"), "--password-file", password, "--json"],
      ),
      { env: { ...process.env, PLATEN_DATA_DIR: stack.dataDir } },
    );
    expect(JSON.parse(stdout)).toMatchObject({ label: "cli-seal", keyAlgorithm: "EC-P-256" });
    expect(await workspaceHasSigningLabel(tenant.workspaceId, "cli-seal")).toBe(true);
  });
});

describe("signed designs", () => {
  beforeAll(async () => {
    const publish = async (label: string, signature: Record<string, unknown>) =>
      (
        await publishDesign(
          { workspaceId: tenant.workspaceId, bundle: signedBundle(label, signature) },
          { clock: systemClock, signingLabelExists: workspaceHasSigningLabel },
        )
      ).id;
    designs.bb = await publish("Signed B-B", { identity: "company-seal", level: "B-B", reason: "修了証の発行" });
    designs.bt = await publish("Signed B-T", { identity: "cli-seal", level: "B-T" });
    designs.visible = await publish("Signed visibly", {
      identity: "company-seal",
      level: "B-B",
      visible: { page: 1, x: "120mm", y: "250mm", width: "70mm", height: "20mm" },
    });
    await addIdentity("short-lived");
    designs.gone = await publish("Signed, identity removed", { identity: "short-lived", level: "B-B" });
  }, 120_000);

  it("refuses to publish a design whose label names no identity: 422 naming signature.identity", async () => {
    const res = await designApi(stack)(
      "POST",
      "/designs",
      { cookie: admin, workspace: tenant.workspaceId },
      {
        label: "Unknown seal",
        parameters: [],
        signature: { identity: "no-such-seal", level: "B-B" },
        template: "<p>x</p>",
      },
    );
    const body = res.body as { code: string; details: { file: string; field: string }[] };
    expect([res.status, body.code]).toEqual([422, "DESIGN_BUNDLE_INVALID"]);
    expect(body.details).toEqual([expect.objectContaining({ file: "design.json", field: "signature.identity" })]);
  });

  it("answers a sync B-B PDF that pdfsig finds valid and trusted; the download is the same bytes; the file page says who signed", async () => {
    const res = await syncCaller(stack, tenant.appKey)("single", {
      designId: designs.bb,
      version: 1,
      content: { fileName: "certificate", params: { name: "Hanako" }, shareType: "03" },
    });
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    const report = await pdfsig(pdf);
    expect(report).toContain("Signature Validation: Signature is Valid.");
    expect(report).toContain("Certificate Validation: Certificate is Trusted.");
    expect(report).toContain("Signature Type: ETSI.CAdES.detached");
    const requestId = res.headers.get("request-id")!;
    const [entry] = decodeFileMapping(res.headers.get("x-file-mapping"));
    const downloaded = Buffer.from(
      await (await download(stack, tenant.appKey, requestId, entry!.fileId)).arrayBuffer(),
    );
    expect(downloaded.equals(pdf)).toBe(true);
    const page = await (await fetch(`${new URL(stack.baseUrl).origin}/file/${requestId}/${entry!.fileId}`)).text();
    expect(page).toMatch(
      /id="file-signature">Signed by CN=Platen Test Signer, O=Example K\.K\., <time[^>]*>[^<]+<\/time> \(B-B\)/,
    );
  });

  it("signs an async B-T file with the TSA's time-stamp, and a visible one where the design asks", async () => {
    const before = tsa.requests();
    const accepted = await acceptOrFail(stack, tenant.appKey, "single", {
      designId: designs.bt,
      version: 1,
      content: { fileName: "stamped", params: { name: "Taro" } },
    });
    const done = await pollStatus(stack, tenant.appKey, accepted.requestId);
    expect(done.body.status).toBe("completed");
    expect(tsa.requests()).toBe(before + 1);
    const pdf = Buffer.from(
      await (await download(stack, tenant.appKey, accepted.requestId, done.body.files[0]!.fileId)).arrayBuffer(),
    );
    const report = await pdfsig(pdf);
    expect(report).toContain("Signature Validation: Signature is Valid.");
    expect(report).toContain("Signer Certificate Common Name: Platen EC Signer");

    const visible = await syncCaller(stack, tenant.appKey)("single", {
      designId: designs.visible,
      version: 1,
      content: { fileName: "visible", params: { name: "Jiro" } },
    });
    const visiblePdf = Buffer.from(await visible.arrayBuffer());
    expect(await pdfsig(visiblePdf)).toContain("Signature Validation: Signature is Valid.");
    expect(visiblePdf.toString("latin1")).toContain("(Digitally signed) Tj");
  });

  it("fails a B-T file when the TSA is down, after three attempts: never delivered unsigned, nothing billed", async () => {
    const pages = await pagesUsedNow(stack, tenant.workspaceId);
    tsa.mode = "down";
    const before = tsa.requests();
    try {
      const accepted = await acceptOrFail(stack, tenant.appKey, "single", {
        designId: designs.bt,
        version: 1,
        content: { fileName: "unstamped", params: { name: "Taro" } },
      });
      const done = await pollStatus(stack, tenant.appKey, accepted.requestId);
      expect(done.body.status).toBe("failed");
      expect(done.body.failedFiles).toEqual([
        expect.objectContaining({ fileName: "unstamped", code: "SIGNING_FAILED" }),
      ]);
      expect(done.body.failedFiles![0]!.message).toContain("cli-seal");
      expect(tsa.requests() - before).toBe(3);
    } finally {
      tsa.mode = "ok";
    }
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(pages);
  });

  it("fails files of a design whose identity was removed with SIGNING_FAILED naming the label, sync and async", async () => {
    const listed = await call("GET", identities(), { cookie: admin });
    const id = listed.body.items.find((i: { label: string }) => i.label === "short-lived").id;
    expect((await call("DELETE", `${identities()}/${id}`, { cookie: outsider })).status).toBe(403);
    expect((await call("DELETE", `${identities()}/${id}`, { cookie: admin })).status).toBe(204);
    expect((await call("DELETE", `${identities()}/${id}`, { cookie: admin })).body.code).toBe(
      "SIGNING_IDENTITY_NOT_FOUND",
    );
    const pages = await pagesUsedNow(stack, tenant.workspaceId);
    const sync = await syncCaller(stack, tenant.appKey)("single", {
      designId: designs.gone,
      version: 1,
      content: { fileName: "orphan", params: { name: "x" } },
    });
    const body = (await sync.json()) as { code: string; message: string };
    expect([sync.status, body.code]).toEqual([422, "SIGNING_FAILED"]);
    expect(body.message).toContain('"short-lived"');
    const accepted = await acceptOrFail(stack, tenant.appKey, "single", {
      designId: designs.gone,
      version: 1,
      content: { fileName: "orphan", params: { name: "x" } },
    });
    const done = await pollStatus(stack, tenant.appKey, accepted.requestId);
    expect(done.body.failedFiles).toEqual([expect.objectContaining({ code: "SIGNING_FAILED" })]);
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(pages);
  });

  it("refuses protection for a signed design: 400 naming content.protection, before anything", async () => {
    const res = await syncCaller(stack, tenant.appKey)("single", {
      designId: designs.bb,
      version: 1,
      content: { fileName: "locked", params: { name: "x" }, protection: { password: "pw-12345678" } },
    });
    const body = (await res.json()) as { code: string; details: { field: string }[] };
    expect([res.status, body.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(body.details.map((d) => d.field)).toEqual(["content.protection"]);
  });

  it("records every use of an identity in the audit log", async () => {
    const uses = (await listAudit(tenant.workspaceId, systemClock)).filter((e) => e.action === "signing-identity.use");
    expect(uses.length).toBeGreaterThanOrEqual(3);
    expect(uses[0]).toMatchObject({ actor: { via: "generation" } });
    expect(uses.map((e) => e.detail?.label)).toEqual(expect.arrayContaining(["company-seal", "cli-seal"]));
  });
});
