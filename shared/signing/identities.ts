import { createHash, createPrivateKey, X509Certificate } from "node:crypto";
import * as z from "zod";
import { type AuditLog, dynamoAuditLog } from "#shared/audit/audit-log.ts";
import { type Clock, systemClock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { newId } from "#shared/ids.ts";
import { BoundedCache } from "#shared/bounded-cache.ts";
import type { IdentityDescription, IdentityInput, SigningIdentity } from "./identity.ts";
import { dynamoIdentityStore, type IdentityStore, type IdentityView, type StoredIdentity } from "./identity-store.ts";
import { type KeySealer, keySealerFromEnvironment } from "./key-sealing.ts";
import { signingText } from "./signing-text.ts";

/** What the identities need: where they are kept, how keys are sealed, the audit log and the clock. */
export interface SigningDeps {
  store: IdentityStore;
  sealer: KeySealer;
  audit: Pick<AuditLog, "record">;
  clock: Clock;
}

/** The deployment's: the workspaces table, the sealer of the environment (key-sealing.ts), the audit log. */
export function defaultSigningDeps(): SigningDeps {
  return {
    store: dynamoIdentityStore,
    get sealer() {
      return keySealerFromEnvironment();
    },
    audit: dynamoAuditLog,
    clock: systemClock,
  };
}

/** A workspace keeps at most this many identities (README.md#identities). */
export const MAX_IDENTITIES_PER_WORKSPACE = 20;
/** An uploaded PKCS#12 (base64) or PEM text is at most this many characters. */
const MAX_INPUT_CHARS = 64 * 1024;

const label = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "1–64 characters: letters, digits, dot, underscore, hyphen");
const material = (what: string) =>
  z.string().min(1).max(MAX_INPUT_CHARS, `at most ${MAX_INPUT_CHARS} characters of ${what}`);

const pkcs12Form = z
  .object({
    label,
    pkcs12: material("base64").regex(/^[A-Za-z0-9+/=\s]+$/, "base64 of a PKCS#12 (.p12, .pfx) file"),
    password: z.string().max(1024),
  })
  .strict();
const pemForm = z
  .object({
    label,
    privateKeyPem: material("PEM"),
    certificateChainPem: material("PEM"),
  })
  .strict();

/** POST …/signing-identities: a PKCS#12 file and its password, or a PEM key and its PEM chain (OpenAPI's oneOf). */
export const createIdentityBody = z.union([pkcs12Form, pemForm]);

/**
 * `createIdentityBody` as the API and the CLI check it: a body with `pkcs12` is checked as that form, any other
 * as the PEM form, so a missing field is named (a union alone answers "Invalid input" without a field).
 */
export const createIdentityRequest = z.unknown().transform((value, ctx): z.infer<typeof createIdentityBody> => {
  const form = typeof value === "object" && value !== null && "pkcs12" in value ? pkcs12Form : pemForm;
  const parsed = form.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue });
  return z.NEVER;
});
export type CreateIdentityBody = z.infer<typeof createIdentityBody>;

/** Who asks, as the audit log records it. */
export type Actor = Parameters<AuditLog["record"]>[0]["actor"];

/** The shown fields of a stored identity. */
export const identityView = (stored: StoredIdentity): IdentityView => ({
  id: stored.id,
  label: stored.label,
  subject: stored.subject,
  issuer: stored.issuer,
  serialNumber: stored.serialNumber,
  notBefore: stored.notBefore,
  notAfter: stored.notAfter,
  fingerprintSha256: stored.fingerprintSha256,
  keyAlgorithm: stored.keyAlgorithm,
  createdAt: stored.createdAt,
});

/**
 * Adds an identity: checked (importIdentity: the password, the validity, the key's match and strength),
 * its key sealed, stored under its label, then audited.
 * @throws PlatenError VALIDATION_FAILED naming the field, or for a label the workspace already has or the limit
 */
export async function addSigningIdentity(
  workspaceId: string,
  body: CreateIdentityBody,
  actor: Actor,
  deps: SigningDeps,
): Promise<IdentityView> {
  const input: IdentityInput =
    "pkcs12" in body
      ? { pkcs12: body.pkcs12, password: body.password }
      : { privateKeyPem: body.privateKeyPem, certificateChainPem: body.certificateChainPem };
  // Loaded here: the PKCS#12 reader (pkijs) is most of a function's code, and only adding an identity needs it.
  const { importIdentity } = await import("./identity.ts");
  const { identity, description } = await importIdentity(input, deps.clock);
  const existing = await deps.store.list(workspaceId);
  if (existing.some((i) => i.label === body.label))
    throw refused("label", fillBoth(signingText.labelTaken, { label: body.label }));
  if (existing.length >= MAX_IDENTITIES_PER_WORKSPACE)
    throw refused("label", fillBoth(signingText.tooMany, { max: MAX_IDENTITIES_PER_WORKSPACE }));
  const id = newId();
  const plainKey = identity.privateKey.export({ format: "der", type: "pkcs8" });
  const sealedKey = await deps.sealer.seal(plainKey, { workspaceId, identityId: id });
  plainKey.fill(0);
  const stored: StoredIdentity = {
    id,
    workspaceId,
    label: body.label,
    ...description,
    createdAt: deps.clock.now().toISOString(),
    chain: identity.chain.map((cert) => cert.raw.toString("base64")),
    sealedKey,
  };
  if (!(await deps.store.insert(stored)))
    throw refused("label", fillBoth(signingText.labelTaken, { label: body.label }));
  await deps.audit.record(
    { workspaceId, actor, action: "signing-identity.create", target: id, detail: { label: body.label } },
    deps.clock,
  );
  return identityView(stored);
}

/** The workspace's identities, oldest first, without keys. */
export async function listSigningIdentities(workspaceId: string, deps: Pick<SigningDeps, "store">) {
  return (await deps.store.list(workspaceId)).map(identityView);
}

/**
 * Removes an identity by id; another workspace's id is not found. Designs that name its label then
 * fail their files with SIGNING_FAILED. @throws PlatenError SIGNING_IDENTITY_NOT_FOUND
 */
export async function removeSigningIdentity(
  workspaceId: string,
  identityId: string,
  actor: Actor,
  deps: Pick<SigningDeps, "store" | "audit" | "clock">,
): Promise<void> {
  const found = (await deps.store.list(workspaceId)).find((i) => i.id === identityId);
  if (!found || !(await deps.store.delete(found))) throw new PlatenError("SIGNING_IDENTITY_NOT_FOUND");
  unsealed.delete(`${workspaceId}/${found.id}`);
  await deps.audit.record(
    { workspaceId, actor, action: "signing-identity.delete", target: found.id, detail: { label: found.label } },
    deps.clock,
  );
}

/**
 * Records that a document was signed with an identity (audit action `signing-identity.use`, actor
 * `generation`, `detail.label`; `detail.document` the request or `<requestId>/<fileId>` when known).
 */
export async function recordIdentityUse(
  deps: Pick<SigningDeps, "audit" | "clock">,
  use: { workspaceId: string; identityId: string; label: string; document?: string },
): Promise<void> {
  await deps.audit.record(
    {
      workspaceId: use.workspaceId,
      actor: { via: "generation" },
      action: "signing-identity.use",
      target: use.identityId,
      detail: { label: use.label, ...(use.document !== undefined && { document: use.document }) },
    },
    deps.clock,
  );
}

/** Whether the workspace has an identity of this label (publishing a signed design checks it). */
export async function signingLabelExists(
  deps: Pick<SigningDeps, "store">,
  workspaceId: string,
  labelName: string,
): Promise<boolean> {
  return (await deps.store.byLabel(workspaceId, labelName)) !== undefined;
}

/**
 * Keys opened in this container, by workspace and identity id and the seal's hash: a batch opens its key once, not
 * per file (KMS is asked once); the item is read every time, so a removed identity is never used.
 */
const unsealed = new BoundedCache<string, { seal: string; key: Buffer }>({ maxBytes: 1_000_000, maxEntries: 64 });

/**
 * The identity of this label, ready to sign, or undefined when the workspace has none. Its use is recorded
 * once a document is signed with it (`recordIdentityUse`), not here: a request refused after this read
 * used nothing.
 */
export async function loadSigningIdentity(
  deps: SigningDeps,
  workspaceId: string,
  labelName: string,
): Promise<{ id: string; identity: SigningIdentity; description: IdentityDescription } | undefined> {
  const stored = await deps.store.byLabel(workspaceId, labelName);
  if (!stored) return undefined;
  const seal = createHash("sha256").update(JSON.stringify(stored.sealedKey)).digest("hex");
  // Keyed by the whole seal context: the same sealed key under another workspace must be unsealed (and fail).
  const cacheKey = `${workspaceId}/${stored.id}`;
  let pkcs8 = unsealed.get(cacheKey);
  if (pkcs8?.seal !== seal) {
    pkcs8 = { seal, key: await deps.sealer.unseal(stored.sealedKey, { workspaceId, identityId: stored.id }) };
    unsealed.set(cacheKey, pkcs8, pkcs8.key.length);
  }
  const identity: SigningIdentity = {
    privateKey: createPrivateKey({ key: pkcs8.key, format: "der", type: "pkcs8" }),
    chain: stored.chain.map((der) => new X509Certificate(Buffer.from(der, "base64"))),
  };
  const { id: _id, label: _label, createdAt: _at, ...description } = identityView(stored);
  return { id: stored.id, identity, description };
}

const refused = (field: string, text: Bilingual) =>
  new PlatenError("VALIDATION_FAILED", { details: [{ field, code: "VALIDATION_FAILED", text }] });
