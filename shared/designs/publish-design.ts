import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { newId } from "#shared/ids.ts";
import { bundleSha256 } from "./bundle-hash.ts";
import type { DesignBundle } from "./bundle-schema.ts";
import { checkDesignText } from "./design-text.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { designDetailText } from "./design-detail-text.ts";
import {
  advanceDesignHead,
  bundleObjectKey,
  getDesignHead,
  getDesignVersion,
  listDesignHeads,
  putBundle,
  putDesignVersion,
  putThumbnail,
  thumbnailObjectKey,
} from "./design-store.ts";

export interface PublishDeps {
  clock: Clock;
  /**
   * Whether the workspace has a signing identity of this label (a signed design names one):
   * `workspaceHasSigningLabel` of shared/signing/identity-store.ts. Without it a signed design is not published.
   */
  signingLabelExists?: (workspaceId: string, label: string) => Promise<boolean>;
  /** Renders page 1 as PNG; absent → the design has no thumbnail (it answers 404). */
  renderThumbnail?: (bundle: DesignBundle, bundleKey: string) => Promise<Buffer>;
}

export class PublishError extends Error {
  /** The catalogue code when the design's sample document broke a document limit. */
  readonly code?: string;

  constructor(message: string, options?: { code?: string; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.name = "PublishError";
    if (options?.code) this.code = options.code;
  }
}

export interface PublishInput {
  workspaceId: string;
  bundle: DesignBundle;
  /**
   * The design to publish to. Absent: a new design — or, with `matchLabel` (the admin CLI
   * re-publishing a folder), the workspace's active design with the bundle's label.
   */
  designId?: string;
  matchLabel?: boolean;
  /** The publish must create exactly this + 1, or fail with DESIGN_VERSION_CONFLICT. */
  expectedLatestVersion?: number;
  note?: string;
  /** Who publishes: a user's e-mail, an OAuth client's name, `admin-cli`. */
  createdBy?: string;
  /** The thumbnail, when it is already rendered (a gallery copy): the bundle is not rendered again. */
  thumbnail?: Buffer;
  /** A new design's label, when not the bundle's own (a gallery copy named by its copier). */
  label?: string;
}

export interface Published {
  id: string;
  version: number;
  label: string;
  sha256: string;
}

/**
 * The one publishing path (the design API, the admin CLI, the local seed, gallery copies):
 * the bundle and its thumbnail are stored by content hash first, then a version number is
 * claimed with a conditional write (a lost race tries the next number, so numbers stay
 * contiguous), then the head moves forward. A failure part-way leaves nothing a client can
 * reach: objects no version names are never read.
 */
export async function publishDesign(input: PublishInput, deps: PublishDeps): Promise<Published> {
  const { workspaceId, bundle } = input;
  // A copy's own label meets the schema design.json's label does (every route, one schema).
  const label = input.label === undefined ? undefined : checkDesignText({ label: input.label }).label;
  const existing = input.designId
    ? await getDesignHead(workspaceId, input.designId)
    : input.matchLabel
      ? (await listDesignHeads(workspaceId)).find((h) => h.label === bundle.manifest.label && !h.archived)
      : undefined;
  if (input.designId && (!existing || existing.archived)) throw new PlatenError("DESIGN_NOT_FOUND");
  await checkSigningIdentity(workspaceId, bundle, deps);
  const id = existing?.id ?? newId();
  const sha256 = bundleSha256(bundle);
  const { bundleKey, thumbnailKey, inline } = await storeBundle(workspaceId, id, sha256, bundle, {
    ...deps,
    ...(input.thumbnail && { renderThumbnail: async () => input.thumbnail! }),
  });
  let version = (existing?.latestVersion ?? 0) + 1;
  if (input.expectedLatestVersion !== undefined) {
    if (input.expectedLatestVersion !== version - 1)
      throw conflict(await latestVersionOf(workspaceId, id, existing?.latestVersion ?? 0));
    version = input.expectedLatestVersion + 1;
  }
  for (; ; version++) {
    const now = deps.clock.now().toISOString();
    try {
      await putDesignVersion({
        designId: id,
        workspaceId,
        version,
        manifest: bundle.manifest,
        bundleKey,
        ...(thumbnailKey && { thumbnailKey }),
        createdAt: now,
        ...(input.createdBy && { createdBy: input.createdBy }),
        ...(input.note && { note: input.note }),
        sha256,
        ...(inline !== undefined && { bundleJson: inline }),
      });
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      // Another publish took this number: with an expected version that is a conflict.
      if (input.expectedLatestVersion !== undefined) throw conflict(await latestVersionOf(workspaceId, id, version));
      continue;
    }
    await advanceDesignHead({
      id,
      workspaceId,
      label: label ?? bundle.manifest.label,
      ...(bundle.manifest.description !== undefined && { description: bundle.manifest.description }),
      latestVersion: version,
      at: now,
      ...(input.createdBy && { by: input.createdBy }),
    }).catch(ignoreConditionalCheckFailed);
    return { id, version, label: existing?.label ?? label ?? bundle.manifest.label, sha256 };
  }
}

/**
 * A signed design names one of its workspace's signing identities: 422 DESIGN_BUNDLE_INVALID naming
 * `signature.identity` of design.json otherwise, before anything is stored. (Removed later, the
 * design's files fail with SIGNING_FAILED.)
 */
async function checkSigningIdentity(workspaceId: string, bundle: DesignBundle, deps: PublishDeps): Promise<void> {
  const label = bundle.manifest.signature?.identity;
  if (label === undefined) return;
  // Fails closed: a caller that can publish signed designs passes the check (identities.ts).
  const exists = deps.signingLabelExists;
  if (!exists) throw new Error("publishing a signed design needs PublishDeps.signingLabelExists");
  if (await exists(workspaceId, label)) return;
  throw new PlatenError("DESIGN_BUNDLE_INVALID", {
    details: [
      {
        file: "design.json",
        field: "signature.identity",
        text: fillBoth(designDetailText.unknownSigningIdentity, { label, workspaceId }),
      },
    ],
  });
}

/** The thumbnail is rendered first: a design it refuses (e.g. over the page limit) leaves nothing stored. */
async function storeBundle(
  workspaceId: string,
  id: string,
  sha256: string,
  bundle: DesignBundle,
  deps: PublishDeps,
): Promise<{ bundleKey: string; thumbnailKey?: string; inline?: string }> {
  const bundleKey = bundleObjectKey(workspaceId, id, sha256);
  const thumbnail = deps.renderThumbnail
    ? await deps.renderThumbnail(bundle, `${workspaceId}/${id}#${sha256}`)
    : undefined;
  const { inline } = await putBundle(bundleKey, bundle);
  const stored = { bundleKey, ...(inline !== undefined && { inline }) };
  if (!thumbnail) return stored;
  const thumbnailKey = thumbnailObjectKey(workspaceId, id, sha256);
  await putThumbnail(thumbnailKey, thumbnail);
  return { ...stored, thumbnailKey };
}

/** The highest version at or after `from` (the head may lag a publish that is finishing). */
async function latestVersionOf(workspaceId: string, id: string, from: number): Promise<number> {
  let latest = from;
  while (await getDesignVersion(workspaceId, id, latest + 1)) latest++;
  return latest;
}

const conflict = (latestVersion: number) =>
  new PlatenError("DESIGN_VERSION_CONFLICT", {
    details: [
      {
        field: "expectedLatestVersion",
        latestVersion,
        text: fillBoth(designDetailText.versionConflict, { version: latestVersion }),
      },
    ],
  });
