import { createHash, sign, verify, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "#shared/audit/audit-log.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import {
  addSigningIdentity,
  createIdentityBody,
  loadSigningIdentity,
  listSigningIdentities,
  MAX_IDENTITIES_PER_WORKSPACE,
  recordIdentityUse,
  removeSigningIdentity,
  type SigningDeps,
  signingLabelExists,
} from "#shared/signing/identities.ts";
import type { IdentityStore, StoredIdentity } from "#shared/signing/identity-store.ts";
import { fileKeySealer, keySealerFromEnvironment } from "#shared/signing/key-sealing.ts";
import { type SigningFixtures, signingFixtures } from "../helpers/signing-fixtures.ts";

/**
 * Signing identities (shared/signing/README.md#identities) against in-memory ports: what an upload is
 * refused for (a table, each naming its field in both languages), what is kept (the key sealed, never in
 * clear), the audit entries, and the local key file's seal.
 */

let fixtures: SigningFixtures;
beforeAll(async () => {
  fixtures = await signingFixtures();
}, 60_000);

function memoryStore(): IdentityStore & { items: StoredIdentity[] } {
  const items: StoredIdentity[] = [];
  return {
    items,
    list: async (ws) => items.filter((i) => i.workspaceId === ws),
    byLabel: async (ws, label) => items.find((i) => i.workspaceId === ws && i.label === label),
    insert: async (identity) => {
      if (items.some((i) => i.workspaceId === identity.workspaceId && i.label === identity.label)) return false;
      items.push(identity);
      return true;
    },
    delete: async (identity) => {
      const at = items.findIndex((i) => i.id === identity.id);
      if (at < 0) return false;
      items.splice(at, 1);
      return true;
    },
  };
}

function deps(now = new Date()) {
  const audit: Omit<AuditEntry, "id" | "at">[] = [];
  const store = memoryStore();
  const sealer = fileKeySealer(join(mkdtempSync(join(tmpdir(), "platen-seal-")), "signing-key"));
  const all: SigningDeps = {
    store,
    sealer,
    audit: {
      record: async (entry) => {
        audit.push(entry);
        return { ...entry, id: "a", at: now.toISOString() };
      },
    },
    clock: { now: () => now },
  };
  return { all, audit, store };
}

const admin = { via: "session" as const, userId: "U1" };
const p12 = (id: { pkcs12: Buffer }, password = fixtures.password) => ({
  label: "seal",
  pkcs12: id.pkcs12.toString("base64"),
  password,
});

async function refusal(body: unknown, d = deps()): Promise<PlatenError> {
  const error = await addSigningIdentity("W1", createIdentityBody.parse(body), admin, d.all).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PlatenError);
  return error as PlatenError;
}

describe("adding an identity", () => {
  it("takes a PKCS#12 file and answers the certificate's facts, never the key", async () => {
    const d = deps();
    const view = await addSigningIdentity("W1", createIdentityBody.parse(p12(fixtures.rsa)), admin, d.all);
    const cert = new X509Certificate(fixtures.rsa.certPem);
    expect(view).toMatchObject({
      label: "seal",
      subject: "CN=Platen Test Signer, O=Example K.K.",
      issuer: "CN=Platen Test CA, O=Platen tests",
      serialNumber: cert.serialNumber.toLowerCase(),
      fingerprintSha256: createHash("sha256").update(cert.raw).digest("hex"),
      keyAlgorithm: "RSA-2048",
    });
    expect(Object.keys(view).sort()).toEqual(
      [
        "createdAt",
        "fingerprintSha256",
        "id",
        "issuer",
        "keyAlgorithm",
        "label",
        "notAfter",
        "notBefore",
        "serialNumber",
        "subject",
      ].sort(),
    );
    // Stored: the chain and a sealed key; no PEM or DER of the key anywhere in the item.
    const stored = JSON.stringify(d.store.items[0]);
    const keyDer = Buffer.from(fixtures.rsa.keyPem.toString().replace(/-----[^-]+-----|\s/g, ""), "base64");
    expect(stored).not.toContain("PRIVATE KEY");
    expect(stored).not.toContain(keyDer.toString("base64").slice(40, 120));
    expect(d.store.items[0]!.chain).toHaveLength(2);
    expect(d.audit).toEqual([
      expect.objectContaining({ action: "signing-identity.create", target: view.id, detail: { label: "seal" } }),
    ]);
  });

  it("takes a PEM key with its chain in either order, and an EC P-256 key", async () => {
    const d = deps();
    const pem = await addSigningIdentity(
      "W1",
      createIdentityBody.parse({
        label: "pem",
        privateKeyPem: fixtures.rsa.keyPem.toString(),
        certificateChainPem: `${fixtures.caPem}${fixtures.rsa.certPem}`,
      }),
      admin,
      d.all,
    );
    expect(pem.subject).toContain("Platen Test Signer");
    const ec = await addSigningIdentity(
      "W1",
      createIdentityBody.parse({ ...p12(fixtures.ec), label: "ec" }),
      admin,
      d.all,
    );
    expect(ec.keyAlgorithm).toBe("EC-P-256");
    expect((await listSigningIdentities("W1", d.all)).map((i) => i.label)).toEqual(["pem", "ec"]);
  });

  it.each([
    ["a wrong password", () => p12(fixtures.rsa, "wrong"), "password", "password does not open"],
    ["an expired certificate", () => p12(fixtures.expired), "certificate", "expired on 2021-01-01"],
    ["a key weaker than RSA 2048", () => p12(fixtures.weak), "privateKey", "too weak"],
    [
      "bytes that are not PKCS#12",
      () => ({ label: "x", pkcs12: Buffer.from("not a p12").toString("base64"), password: "x" }),
      "pkcs12",
      "not a readable PKCS#12",
    ],
    [
      "a key that does not match its certificate",
      () => ({
        label: "x",
        privateKeyPem: fixtures.ec.keyPem.toString(),
        certificateChainPem: fixtures.rsa.chainPem.toString(),
      }),
      "privateKey",
      "does not match",
    ],
    [
      "an encrypted or unreadable PEM key",
      () => ({
        label: "x",
        privateKeyPem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
        certificateChainPem: fixtures.rsa.chainPem.toString(),
      }),
      "privateKeyPem",
      "PEM",
    ],
    [
      "a chain without a certificate",
      () => ({ label: "x", privateKeyPem: fixtures.rsa.keyPem.toString(), certificateChainPem: "nothing" }),
      "certificateChainPem",
      "no PEM certificate",
    ],
  ])("refuses %s: 400 VALIDATION_FAILED naming %s, in both languages", async (_name, body, field, words) => {
    const error = await refusal(body());
    expect([error.code, error.status]).toEqual(["VALIDATION_FAILED", 400]);
    expect(error.details[0]!.field).toBe(field);
    expect(detailMessage(error.details[0]!, "en")).toContain(words);
    expect(detailMessage(error.details[0]!, "ja")).toMatch(/[ぁ-んァ-ン一-龯]/);
  });

  it("refuses a label the workspace has, and more than the limit", async () => {
    const d = deps();
    await addSigningIdentity("W1", createIdentityBody.parse(p12(fixtures.ec)), admin, d.all);
    const taken = await refusal(p12(fixtures.ec), d);
    expect(taken.details[0]!.field).toBe("label");
    expect(detailMessage(taken.details[0]!, "en")).toContain('already has a signing identity labelled "seal"');
    // Another workspace may use the same label.
    await expect(
      addSigningIdentity("W2", createIdentityBody.parse(p12(fixtures.ec)), admin, d.all),
    ).resolves.toBeDefined();
    for (let i = d.store.items.filter((x) => x.workspaceId === "W1").length; i < MAX_IDENTITIES_PER_WORKSPACE; i++)
      d.store.items.push({ ...d.store.items[0]!, id: `I${i}`, label: `l${i}` });
    const tooMany = await refusal({ ...p12(fixtures.ec), label: "one-more" }, d);
    expect(detailMessage(tooMany.details[0]!, "en")).toContain(`at most ${MAX_IDENTITIES_PER_WORKSPACE}`);
  });

  it("refuses malformed bodies by schema: labels, unknown fields, oversize input", () => {
    for (const body of [
      { ...p12({ pkcs12: Buffer.from("x") }), label: "has space" },
      { ...p12({ pkcs12: Buffer.from("x") }), extra: 1 },
      { label: "x", pkcs12: "A".repeat(70_000), password: "p" },
      { label: "x", privateKeyPem: "k" },
    ])
      expect(createIdentityBody.safeParse(body).success).toBe(false);
  });
});

describe("using and removing an identity", () => {
  it("loads a key that signs for its certificate, records the use, and knows its label", async () => {
    const d = deps();
    const view = await addSigningIdentity("W1", createIdentityBody.parse(p12(fixtures.rsa)), admin, d.all);
    const loaded = await loadSigningIdentity(d.all, "W1", "seal");
    expect(loaded?.id).toBe(view.id);
    const signature = sign("sha256", Buffer.from("data"), loaded!.identity.privateKey);
    expect(verify("sha256", Buffer.from("data"), loaded!.identity.chain[0]!.publicKey, signature)).toBe(true);
    expect(loaded!.description.subject).toBe(view.subject);
    // Loading records nothing: a use is recorded once a document is signed (design-signer.ts).
    expect(d.audit.map((e) => e.action)).toEqual(["signing-identity.create"]);
    await recordIdentityUse(d.all, { workspaceId: "W1", identityId: view.id, label: "seal", document: "R1/F1" });
    expect(d.audit.at(-1)).toMatchObject({
      action: "signing-identity.use",
      actor: { via: "generation" },
      target: view.id,
      detail: { label: "seal", document: "R1/F1" },
    });
    expect(await signingLabelExists(d.all, "W1", "seal")).toBe(true);
    expect(await signingLabelExists(d.all, "W2", "seal")).toBe(false);
    expect(await loadSigningIdentity(d.all, "W2", "seal")).toBeUndefined();
  });

  it("opens a key once per container and seal; a copy of the item in another workspace does not open", async () => {
    const d = deps();
    let unseals = 0;
    const counting: SigningDeps = {
      ...d.all,
      sealer: {
        seal: (plain, context) => d.all.sealer.seal(plain, context),
        unseal: (sealed, context) => {
          unseals++;
          return d.all.sealer.unseal(sealed, context);
        },
      },
    };
    await addSigningIdentity("W1", createIdentityBody.parse(p12(fixtures.ec)), admin, counting);
    for (let file = 0; file < 3; file++) expect(await loadSigningIdentity(counting, "W1", "seal")).toBeDefined();
    expect(unseals).toBe(1);
    // Opened in W1 already: the same id and seal under W2 are unsealed under W2's context, and fail.
    d.store.items.push({ ...d.store.items[0]!, workspaceId: "W2" });
    await expect(loadSigningIdentity(counting, "W2", "seal")).rejects.toThrow();
    expect(unseals).toBe(2);
  });

  it("removes by id within its workspace only: another workspace's id is not found", async () => {
    const d = deps();
    const view = await addSigningIdentity("W1", createIdentityBody.parse(p12(fixtures.rsa)), admin, d.all);
    const other = await removeSigningIdentity("W2", view.id, admin, d.all).catch((e: unknown) => e);
    expect((other as PlatenError).code).toBe("SIGNING_IDENTITY_NOT_FOUND");
    expect((other as PlatenError).status).toBe(404);
    await removeSigningIdentity("W1", view.id, admin, d.all);
    expect(await loadSigningIdentity(d.all, "W1", "seal")).toBeUndefined();
    expect(d.audit.at(-1)).toMatchObject({ action: "signing-identity.delete", target: view.id });
  });
});

describe("the local key file's seal", () => {
  const context = { workspaceId: "W1", identityId: "I1" };

  it("opens what it sealed; not under another context, another key or a changed byte", async () => {
    const dir = mkdtempSync(join(tmpdir(), "platen-seal-"));
    const sealer = fileKeySealer(join(dir, "signing-key"));
    const sealed = await sealer.seal(Buffer.from("pkcs8 bytes"), context);
    expect(statSync(join(dir, "signing-key")).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(join(dir, "signing-key"), "utf8"), "base64")).toHaveLength(32);
    expect((await sealer.unseal(sealed, context)).toString()).toBe("pkcs8 bytes");
    await expect(sealer.unseal(sealed, { ...context, workspaceId: "W2" })).rejects.toThrow();
    const flipped = Buffer.from(sealed.data, "base64");
    flipped[0] = flipped[0]! ^ 1;
    await expect(sealer.unseal({ ...sealed, data: flipped.toString("base64") }, context)).rejects.toThrow();
    const other = fileKeySealer(join(mkdtempSync(join(tmpdir(), "platen-seal-")), "signing-key"));
    await expect(other.unseal(sealed, context)).rejects.toThrow();
  });

  it("is chosen by the environment, with a clear error when none is configured", () => {
    expect(() => keySealerFromEnvironment({})).toThrow(/PLATEN_SIGNING_KMS_KEY_ID.*PLATEN_SIGNING_KEY_FILE/);
    expect(keySealerFromEnvironment({ PLATEN_SIGNING_KEY_FILE: "/tmp/x" })).toBeDefined();
    expect(keySealerFromEnvironment({ PLATEN_SIGNING_KMS_KEY_ID: "alias/platen" })).toBeDefined();
  });
});
