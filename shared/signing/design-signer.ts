import { setTimeout as sleep } from "node:timers/promises";
import type { DesignManifest } from "#shared/designs/bundle-schema.ts";
import { lengthToMm } from "#shared/designs/page-size.ts";
import { ConfigError, durationMs, type Environment, environment } from "#shared/config/settings.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { FileSignature } from "./file-signature.ts";
import type { IdentityDescription, SigningIdentity } from "./identity.ts";
import type { SignOptions } from "./sign-pdf.ts";

/** design.json `signature`: which identity signs every generated PDF of the design, and how. */
export type DesignSignature = NonNullable<DesignManifest["signature"]>;

/** Signs one generated document after its last other step (shared/signing/README.md). */
export interface DocumentSigner {
  /** What the file's record keeps of the signature. */
  readonly signature: FileSignature;
  /** @throws PlatenError SIGNING_FAILED naming the label and the reason */
  sign(pdf: Buffer): Promise<Buffer>;
}

/** The deployment's time-stamp authority (`PLATEN_TSA_URL`), for level B-T. */
export interface TsaSettings {
  url: string;
  policyOid?: string;
  timeoutMs: number;
}

/** A loaded identity: what `loadSigningIdentity` (identities.ts) answers. */
export interface LoadedIdentity {
  id: string;
  identity: SigningIdentity;
  description: IdentityDescription;
}

export interface SignerDeps {
  /** The workspace's identity of this label, undefined when there is none (removed since publishing). */
  loadIdentity(workspaceId: string, label: string): Promise<LoadedIdentity | undefined>;
  /** Records the identity's use in the audit log, once per signer that signed (identities.ts `recordIdentityUse`). */
  recordUse(use: { workspaceId: string; identityId: string; label: string; document?: string }): Promise<void>;
  /** Undefined: no TSA configured, so a B-T design fails its files. */
  tsa: TsaSettings | undefined;
  /** Pauses between time-stamp attempts (default 0.5 s, 1.5 s): three attempts in all. */
  retryDelaysMs?: readonly number[];
}

const TSA_RETRY_DELAYS_MS = [500, 1500] as const;
const DEFAULT_TSA_TIMEOUT_MS = 10_000;
const OID = /^[0-2](\.(0|[1-9]\d*))+$/;

/**
 * The time-stamp authority of the deployment: `PLATEN_TSA_URL` (http or https), `PLATEN_TSA_POLICY`
 * (an OID, optional) and `PLATEN_TSA_TIMEOUT_MS` (default 10 s). Undefined without a URL.
 * @throws ConfigError naming the variable
 */
export function readTsaSettings(env: Environment = environment()): TsaSettings | undefined {
  const url = env.PLATEN_TSA_URL;
  if (url === undefined || url === "") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new ConfigError(`PLATEN_TSA_URL must be an http or https URL (got ${JSON.stringify(url)})`, { cause });
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    throw new ConfigError(`PLATEN_TSA_URL must be an http or https URL (got ${JSON.stringify(url)})`);
  const policyOid = env.PLATEN_TSA_POLICY || undefined;
  if (policyOid !== undefined && !OID.test(policyOid))
    throw new ConfigError(`PLATEN_TSA_POLICY must be an OID such as 1.2.3.4 (got ${JSON.stringify(policyOid)})`);
  return {
    url: parsed.href,
    ...(policyOid && { policyOid }),
    timeoutMs: durationMs(env, "PLATEN_TSA_TIMEOUT_MS", "ms") ?? DEFAULT_TSA_TIMEOUT_MS,
  };
}

/**
 * The deployment's signing: identities from the workspaces table, keys unsealed by the deployment's
 * sealer (identities.ts), the TSA of `PLATEN_TSA_URL`. Loaded on first use by a signed design.
 */
export async function defaultSignerDeps(): Promise<SignerDeps> {
  const { defaultSigningDeps, loadSigningIdentity, recordIdentityUse } = await import("./identities.ts");
  const store = defaultSigningDeps();
  return {
    loadIdentity: (workspaceId, label) => loadSigningIdentity(store, workspaceId, label),
    recordUse: (use) => recordIdentityUse(store, use),
    tsa: readTsaSettings(),
  };
}

/** 422 SIGNING_FAILED naming the design's identity label and why. */
export const signingFailed = (label: string, reason: string, cause?: unknown): PlatenError =>
  new PlatenError("SIGNING_FAILED", { vars: { label, reason }, ...(cause !== undefined && { cause }) });

const POINTS_PER_MM = 72 / 25.4;

/**
 * The signer of a design's documents in one request or file (`document`: its id, for the audit entry):
 * the identity is read (and its key unsealed) once, here, so a removed identity fails the file, not a
 * later step; its use is audited once, when the first document is signed. Every check that
 * needs no PDF runs now: an identity that is gone, a certificate outside its validity at
 * `signingTime`, B-T without a time-stamp authority.
 * @throws PlatenError SIGNING_FAILED
 */
export async function designSigner(
  workspaceId: string,
  signature: DesignSignature,
  signingTime: Date,
  deps: SignerDeps,
  document?: string,
): Promise<DocumentSigner> {
  const label = signature.identity;
  const loaded = await deps.loadIdentity(workspaceId, label);
  if (!loaded) throw signingFailed(label, "the workspace has no signing identity of this label");
  const { description } = loaded;
  if (signingTime.getTime() > Date.parse(description.notAfter))
    throw signingFailed(label, `its certificate expired on ${description.notAfter}`);
  if (signingTime.getTime() < Date.parse(description.notBefore))
    throw signingFailed(label, `its certificate is not valid before ${description.notBefore}`);
  const tsa = deps.tsa;
  if (signature.level === "B-T" && !tsa)
    throw signingFailed(label, "level B-T needs a time-stamp authority, and none is configured (PLATEN_TSA_URL)");
  const options: SignOptions = {
    identity: loaded.identity,
    level: signature.level,
    signingTime,
    ...(signature.reason !== undefined && { reason: signature.reason }),
    ...(signature.location !== undefined && { location: signature.location }),
    ...(signature.contactInfo !== undefined && { contactInfo: signature.contactInfo }),
    ...(signature.visible && { visible: visibleBox(signature.visible) }),
    ...(signature.level === "B-T" && tsa && { timestamp: tsa }),
  };
  const delays = deps.retryDelaysMs ?? TSA_RETRY_DELAYS_MS;
  let used: Promise<void> | undefined;
  const recordUse = () => {
    used ??= deps.recordUse({ workspaceId, identityId: loaded.id, label, ...(document !== undefined && { document }) });
    return used;
  };
  return {
    signature: { subject: description.subject, signedAt: signingTime.toISOString(), level: signature.level },
    sign: async (pdf) => {
      // Loaded only by signed designs: pkijs and the PDF appender are no part of any other cold start.
      const { signPdf } = await import("./sign-pdf.ts");
      const { SignPdfError, TimestampError } = await import("./signing-errors.ts");
      for (let attempt = 0; ; attempt++) {
        let signed: Buffer;
        try {
          signed = (await signPdf(pdf, options)).pdf;
        } catch (error) {
          // A TSA that is down or slow is asked again, then the file fails: never delivered as B-B.
          if (error instanceof TimestampError && error.transient && attempt < delays.length) {
            await sleep(delays[attempt]);
            continue;
          }
          if (error instanceof TimestampError) {
            const tries = attempt + 1;
            throw signingFailed(
              label,
              `the time-stamp authority did not time-stamp the signature (${tries} attempt${tries > 1 ? "s" : ""}): ${error.message}`,
              error,
            );
          }
          if (error instanceof SignPdfError) throw signingFailed(label, error.message, error);
          throw error;
        }
        // The audit entry before the bytes leave: a signed document is never delivered unrecorded.
        await recordUse();
        return signed;
      }
    },
  };
}

/**
 * `designSigner` started now, its identity read while Chromium renders: generation awaits it after the
 * render (a rejection is handled meanwhile, so a failed render leaves nothing unhandled). `deps` default to
 * the deployment's (`defaultSignerDeps`).
 */
export function startDesignSigner(
  workspaceId: string,
  signature: DesignSignature,
  signingTime: Date,
  document: string,
  deps?: SignerDeps,
): Promise<DocumentSigner> {
  const started = (async () =>
    designSigner(workspaceId, signature, signingTime, deps ?? (await defaultSignerDeps()), document))();
  started.catch(() => undefined);
  return started;
}

/** design.json's box (CSS lengths, top-left origin) in PDF points, still from the page's top-left. */
function visibleBox(visible: NonNullable<DesignSignature["visible"]>): NonNullable<SignOptions["visible"]> {
  const pt = (length: string) => lengthToMm(length) * POINTS_PER_MM;
  return {
    page: visible.page,
    x: pt(visible.x),
    y: pt(visible.y),
    width: pt(visible.width),
    height: pt(visible.height),
  };
}
