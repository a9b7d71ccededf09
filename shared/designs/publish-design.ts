import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import type { Clock } from "#shared/clock.ts";
import { newId } from "#shared/ids.ts";
import type { DesignBundle } from "./bundle-schema.ts";
import {
  bundleObjectKey,
  getDesignHead,
  listDesignHeads,
  putBundle,
  putDesignHead,
  putDesignVersion,
  putThumbnail,
  thumbnailObjectKey,
} from "./design-store.ts";

export interface PublishDeps {
  clock: Clock;
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

/**
 * Publishes a bundle as a new immutable version. Without `designId`, a design of the
 * workspace with the same label gets the new version (re-publishing a folder), else a
 * new design is created. Writes run bundle → thumbnail → version → head, so a failure
 * part-way leaves nothing a client can reach.
 */
export async function publishDesign(
  input: { workspaceId: string; bundle: DesignBundle; designId?: string },
  deps: PublishDeps,
): Promise<{ id: string; version: number; label: string }> {
  const { workspaceId, bundle } = input;
  const existing = input.designId
    ? await getDesignHead(workspaceId, input.designId)
    : (await listDesignHeads(workspaceId)).find((h) => h.label === bundle.manifest.label);
  if (input.designId && !existing)
    throw new PublishError(`design ${input.designId} not found in workspace ${workspaceId}`);
  const id = existing?.id ?? newId();
  for (let version = (existing?.latestVersion ?? 0) + 1; ; version++) {
    // The thumbnail first: a design it refuses (e.g. over the page limit) leaves nothing stored.
    const thumbnail = deps.renderThumbnail ? await deps.renderThumbnail(bundle, `${id}@${version}`) : undefined;
    const bundleKey = bundleObjectKey(workspaceId, id, version);
    await putBundle(bundleKey, bundle);
    const thumbnailKey = thumbnail ? thumbnailObjectKey(workspaceId, id, version) : undefined;
    if (thumbnailKey && thumbnail) await putThumbnail(thumbnailKey, thumbnail);
    const now = deps.clock.now().toISOString();
    try {
      await putDesignVersion({
        designId: id,
        workspaceId,
        version,
        manifest: bundle.manifest,
        bundleKey,
        thumbnailKey,
        createdAt: now,
      });
    } catch (err) {
      if (isConditionalCheckFailed(err)) continue; // a concurrent publish took it
      throw err;
    }
    await putDesignHead({
      id,
      workspaceId,
      label: bundle.manifest.label,
      latestVersion: version,
      createdAt: now,
      updatedAt: now,
    }).catch(ignoreConditionalCheckFailed);
    return { id, version, label: bundle.manifest.label };
  }
}
