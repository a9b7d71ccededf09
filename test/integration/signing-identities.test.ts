import { createPrivateKey, sign, verify } from "node:crypto";
import { join } from "node:path";
import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "#shared/audit/audit-log.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { defaultSigningDeps, loadSigningIdentity, signingLabelExists } from "#shared/signing/identities.ts";
import {
  makePublicClient,
  makeUser,
  manage,
  sessionOf,
  useStackIdentityKeys,
  userToken,
} from "../helpers/management-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { type SigningFixtures, signingFixtures } from "../helpers/signing-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";

/**
 * Signing identities over the management API (OpenAPI createSigningIdentity, listSigningIdentities,
 * deleteSigningIdentity; shared/signing/README.md#identities) on the worker's shared stack, in two
 * workspaces of this file: what is answered and what DynamoDB keeps (never the key in clear), each
 * refusal naming its field, a duplicate label, deletion and tenant isolation, the audit, and
 * `loadSigningIdentity` over the stack's table opening a key that signs for its certificate.
 */

let stack: SharedStack;
let call: ReturnType<typeof manage>;
let fixtures: SigningFixtures;
let a: Tenant;
let b: Tenant;
let adminA: string;
let adminB: string;
let readerA: string;

const path = (ws: Tenant) => `/workspace/${ws.workspaceId}/signing-identities`;
const rsaP12 = (label: string) => ({
  label,
  pkcs12: fixtures.rsa.pkcs12.toString("base64"),
  password: fixtures.password,
});
/** The base64 body of a PEM block: what a leaked key would show. */
const pemBody = (pem: Buffer) => pem.toString().replace(/-----[^-]+-----|\s/g, "");
const keyTraces = () => {
  const traces = [];
  for (const id of [fixtures.rsa, fixtures.ec]) {
    const der = createPrivateKey(id.keyPem).export({ format: "der", type: "pkcs8" });
    traces.push(
      pemBody(id.keyPem).slice(64, 128),
      der.toString("base64").slice(64, 128),
      der.toString("hex").slice(128, 256),
    );
  }
  return traces;
};

async function storedItems(ws: Tenant): Promise<Record<string, unknown>[]> {
  const out = await awsClients().ddb.send(
    new QueryCommand({
      TableName: config().tables.workspaces,
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": `WS#${ws.workspaceId}`, ":prefix": "SIGNID#" },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

beforeAll(async () => {
  [stack, fixtures] = await Promise.all([sharedStack(), signingFixtures()]);
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  // The key file the stack seals with (infra/local/stack.ts), for loadSigningIdentity in this process.
  process.env.PLATEN_SIGNING_KEY_FILE = join(stack.dataDir, "signing-key");
  call = manage(stack);
  [a, b] = await Promise.all([createTenant(stack, "identities A"), createTenant(stack, "identities B")]);
  const [userA, userB, reader] = await Promise.all([
    makeUser({ [a.workspaceId]: "admin" }),
    makeUser({ [b.workspaceId]: "admin" }),
    makeUser({ [a.workspaceId]: "read" }),
  ]);
  adminA = await userToken(stack, await makePublicClient(a.workspaceId, "identities A"), userA, a.workspaceId);
  adminB = await userToken(stack, await makePublicClient(b.workspaceId, "identities B"), userB, b.workspaceId);
  readerA = await sessionOf(reader.id);
}, 120_000);

afterAll(() => stack?.release());

describe("adding and listing", () => {
  it("adds from a PKCS#12 file and from a PEM key with its chain: 201 with the certificate's facts only", async () => {
    const p12 = await call("POST", path(a), { token: adminA }, rsaP12("company-seal"));
    expect(p12.status).toBe(201);
    expect(p12.headers.get("cache-control")).toBe("no-store");
    expect(p12.body).toEqual({
      id: expect.any(String),
      label: "company-seal",
      subject: "CN=Platen Test Signer, O=Example K.K.",
      issuer: "CN=Platen Test CA, O=Platen tests",
      serialNumber: expect.stringMatching(/^[0-9a-f]+$/),
      notBefore: expect.any(String),
      notAfter: expect.any(String),
      fingerprintSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      keyAlgorithm: "RSA-2048",
      createdAt: expect.any(String),
    });
    const pem = await call(
      "POST",
      path(a),
      { token: adminA },
      {
        label: "ec.seal_2",
        privateKeyPem: fixtures.ec.keyPem.toString(),
        certificateChainPem: `${fixtures.caPem}${fixtures.ec.certPem}`,
      },
    );
    expect([pem.status, pem.body.keyAlgorithm, pem.body.subject]).toEqual([201, "EC-P-256", "CN=Platen EC Signer"]);

    const listed = await call("GET", path(a), { cookie: readerA });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ items: [p12.body, pem.body] });
    const audit = (await listAudit(a.workspaceId, systemClock)).filter((e) => e.action === "signing-identity.create");
    expect(audit.map((e) => [e.target, e.detail])).toEqual(
      expect.arrayContaining([
        [p12.body.id, { label: "company-seal" }],
        [pem.body.id, { label: "ec.seal_2" }],
      ]),
    );
  });

  it("keeps no key in clear: not in the stored items, not in the answers", async () => {
    const items = await storedItems(a);
    expect(items.length).toBeGreaterThanOrEqual(2);
    const texts = [JSON.stringify(items), JSON.stringify((await call("GET", path(a), { token: adminA })).body)];
    for (const text of texts) {
      expect(text).not.toContain("PRIVATE KEY");
      for (const trace of keyTraces()) expect(text).not.toContain(trace);
      expect(text).not.toContain(fixtures.password);
    }
    expect(items[0]).toMatchObject({ sealedKey: { scheme: "local", iv: expect.any(String), tag: expect.any(String) } });
  });

  it("refuses a label the workspace has (400 naming label); another workspace may use it", async () => {
    const again = await call("POST", path(a), { token: adminA }, rsaP12("company-seal"));
    expect([again.status, again.body.code, again.body.details[0].field]).toEqual([400, "VALIDATION_FAILED", "label"]);
    expect(again.body.details[0].message).toContain('"company-seal"');
    expect((await call("POST", path(b), { token: adminB }, rsaP12("company-seal"))).status).toBe(201);
  });
});

describe("refusals: 400 VALIDATION_FAILED naming the field", () => {
  const pemOf = (key: Buffer, chain: Buffer) => ({
    label: "x",
    privateKeyPem: key.toString(),
    certificateChainPem: chain.toString(),
  });
  const cases: [string, () => unknown, string][] = [
    ["a wrong password", () => ({ ...rsaP12("x"), password: "wrong" }), "password"],
    [
      "an expired certificate",
      () => ({ ...rsaP12("x"), pkcs12: fixtures.expired.pkcs12.toString("base64") }),
      "certificate",
    ],
    ["an RSA 1024 key", () => ({ ...rsaP12("x"), pkcs12: fixtures.weak.pkcs12.toString("base64") }), "privateKey"],
    ["a key that is not the certificate's", () => pemOf(fixtures.ec.keyPem, fixtures.rsa.chainPem), "privateKey"],
    ["bytes that are not PKCS#12", () => ({ ...rsaP12("x"), pkcs12: "AAAAAAAA" }), "pkcs12"],
    ["text that is not base64", () => ({ ...rsaP12("x"), pkcs12: "not base64!" }), "pkcs12"],
    ["an upload over 64 KB", () => ({ ...rsaP12("x"), pkcs12: "A".repeat(64 * 1024 + 4) }), "pkcs12"],
    [
      "an unreadable PEM key",
      () => pemOf(Buffer.from("-----BEGIN PRIVATE KEY-----\nAA\n-----END PRIVATE KEY-----"), fixtures.rsa.chainPem),
      "privateKeyPem",
    ],
    ["a chain without a certificate", () => pemOf(fixtures.rsa.keyPem, Buffer.from("nothing")), "certificateChainPem"],
    ["a label with a space", () => rsaP12("has space"), "label"],
    ["a label over 64 characters", () => rsaP12("l".repeat(65)), "label"],
  ];
  it.each(cases)("%s", async (_name, body, field) => {
    const res = await call("POST", path(a), { token: adminA }, body());
    expect([res.status, res.body.code]).toEqual([400, "VALIDATION_FAILED"]);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it("names an unknown field, a missing password or chain, and a body mixing both forms", async () => {
    const cases: [unknown, string][] = [
      [{ ...rsaP12("x"), keyPassword: "p" }, "keyPassword"],
      [{ label: "x", pkcs12: fixtures.rsa.pkcs12.toString("base64") }, "password"],
      [{ label: "x", privateKeyPem: fixtures.rsa.keyPem.toString() }, "certificateChainPem"],
      [{ ...rsaP12("x"), privateKeyPem: fixtures.rsa.keyPem.toString() }, "privateKeyPem"],
    ];
    for (const [body, field] of cases) {
      const res = await call("POST", path(a), { token: adminA }, body);
      expect([res.status, res.body.code, res.body.details.map((d: { field: string }) => d.field)]).toEqual([
        400,
        "VALIDATION_FAILED",
        [field],
      ]);
    }
    // Nothing refused was kept.
    expect((await storedItems(a)).map((i) => i.label).sort()).toEqual(["company-seal", "ec.seal_2"]);
  });

  it("refuses a reader (403) and another workspace's admin on this workspace's path (403)", async () => {
    expect((await call("POST", path(a), { cookie: readerA }, rsaP12("by-reader"))).status).toBe(403);
    expect((await call("POST", path(a), { token: adminB }, rsaP12("by-b"))).status).toBe(403);
    expect((await call("GET", path(a), { token: adminB })).status).toBe(403);
  });
});

describe("using and removing", () => {
  it("loads the identity over the stack's table: a key that signs for its certificate; unknown labels are undefined", async () => {
    const deps = defaultSigningDeps();
    const loaded = await loadSigningIdentity(deps, a.workspaceId, "company-seal");
    expect(loaded).toBeDefined();
    const data = Buffer.from("a document's signed attributes");
    const signature = sign("sha256", data, loaded!.identity.privateKey);
    expect(verify("sha256", data, loaded!.identity.chain[0]!.publicKey, signature)).toBe(true);
    expect(loaded!.identity.chain.map((c) => c.subject)).toEqual([
      "CN=Platen Test Signer\nO=Example K.K.",
      "CN=Platen Test CA\nO=Platen tests",
    ]);
    const listed = (await call("GET", path(a), { token: adminA })).body.items[0];
    expect(loaded!.description.fingerprintSha256).toBe(listed.fingerprintSha256);
    expect(loaded!.id).toBe(listed.id);
    expect(await loadSigningIdentity(deps, a.workspaceId, "no-such-label")).toBeUndefined();
    expect(await signingLabelExists(deps, a.workspaceId, "company-seal")).toBe(true);
    expect(await signingLabelExists(deps, a.workspaceId, "no-such-label")).toBe(false);
  });

  it("does not open a sealed key copied into another workspace's item", async () => {
    const [item] = await storedItems(a);
    await awsClients().ddb.send(
      new PutCommand({
        TableName: config().tables.workspaces,
        Item: { ...item, pk: `WS#${b.workspaceId}`, sk: "SIGNID#copied", workspaceId: b.workspaceId, label: "copied" },
      }),
    );
    await expect(loadSigningIdentity(defaultSigningDeps(), b.workspaceId, "copied")).rejects.toThrow();
  });

  it("deletes: 204, then 404; another workspace's id is 404 on its own path; audited", async () => {
    const id = (await storedItems(a)).find((i) => i.label === "company-seal")!.id as string;
    const otherId = (await storedItems(b)).find((i) => i.label === "company-seal")!.id as string;
    const cross = await call("DELETE", `${path(a)}/${otherId}`, { token: adminA });
    expect([cross.status, cross.body.code]).toEqual([404, "SIGNING_IDENTITY_NOT_FOUND"]);
    expect((await call("DELETE", `${path(a)}/${id}`, { cookie: readerA })).status).toBe(403);

    const deleted = await call("DELETE", `${path(a)}/${id}`, { token: adminA });
    expect(deleted.status).toBe(204);
    const again = await call("DELETE", `${path(a)}/${id}`, { token: adminA });
    expect([again.status, again.body.code]).toEqual([404, "SIGNING_IDENTITY_NOT_FOUND"]);
    const labels = (await call("GET", path(a), { token: adminA })).body.items.map((i: { label: string }) => i.label);
    expect(labels).toEqual(["ec.seal_2"]);
    // B's identity of the same label is untouched, and A's is gone for signing too.
    expect(await signingLabelExists(defaultSigningDeps(), b.workspaceId, "company-seal")).toBe(true);
    expect(await loadSigningIdentity(defaultSigningDeps(), a.workspaceId, "company-seal")).toBeUndefined();
    const removals = (await listAudit(a.workspaceId, systemClock)).filter(
      (e) => e.action === "signing-identity.delete",
    );
    expect(removals).toEqual([expect.objectContaining({ target: id, detail: { label: "company-seal" } })]);
  });
});

describe("after every call of this file", () => {
  // The shared stack logs at its default level (warnings, errors and their causes): what a refusal or a failure
  // would write. logging.test.ts reads a DEBUG stack's every line for the generation path.
  it("the stack's output holds no key, no PEM key block and no PKCS#12 password", () => {
    const output = stack.output();
    expect(output).not.toContain("PRIVATE KEY");
    for (const trace of keyTraces()) expect(output).not.toContain(trace);
    expect(output).not.toContain(fixtures.password);
  });
});
