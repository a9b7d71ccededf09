import { BoundedCache, cachedRead, jsonBytes, MiB, textBytes } from "#shared/bounded-cache.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { DesignBundle, ParameterSpec } from "./bundle-schema.ts";
import { type DesignVersion, getBundle, getDesignHead, getDesignVersion, parseStoredBundle } from "./design-store.ts";

const MAX_DESIGN_ID_LENGTH = 256;

/**
 * The optional `version` query. A value that cannot exist (not a positive integer) is
 * simply not found: OpenAPI getDesignParameters never answers 400 for a wrong id.
 */
export function parseVersionQuery(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw new PlatenError("DESIGN_VERSION_NOT_FOUND");
  return Number(raw);
}

/**
 * OpenAPI getDesignParameters: without `version` a missing design is DESIGN_NOT_FOUND; with a version, a
 * missing design or version is DESIGN_VERSION_NOT_FOUND. Never 400 for a wrong id.
 */
export async function findDesignVersion(
  workspaceId: string,
  designId: string,
  version?: number,
  opts: { archived?: "refuse" | "allow" } = {},
): Promise<DesignVersion> {
  const missing = () => new PlatenError(version === undefined ? "DESIGN_NOT_FOUND" : "DESIGN_VERSION_NOT_FOUND");
  // Ids are 16 characters; a much longer one cannot exist (and would exceed DynamoDB key sizes).
  if (designId.length > MAX_DESIGN_ID_LENGTH) throw missing();
  if (version === undefined) {
    const head = await getDesignHead(workspaceId, designId);
    if (!head || (head.archived && opts.archived !== "allow")) throw missing();
    const latest = await getDesignVersion(workspaceId, designId, head.latestVersion);
    if (!latest) throw missing();
    return latest;
  }
  // An archived design takes no new work, whichever version is named; files accepted before
  // (the render worker: `allow`) still render. The head read runs beside the cached version.
  if (opts.archived === "allow") {
    const found = await cachedVersion(workspaceId, designId, version);
    if (!found) throw missing();
    return found;
  }
  const { design, current } = await findVersionAhead(workspaceId, designId, version);
  await current;
  return design;
}

/**
 * A named version for generation, as soon as it is known (versions never change: a warm
 * container has it cached), while the design's head is still being read: `current` rejects
 * DESIGN_VERSION_NOT_FOUND if the design is archived. Work without effects (templating,
 * a render started ahead) may run meanwhile; the caller awaits `current` before any effect.
 * @throws PlatenError DESIGN_VERSION_NOT_FOUND when the version does not exist
 */
export async function findVersionAhead(
  workspaceId: string,
  designId: string,
  version: number,
): Promise<{ design: DesignVersion; current: Promise<void> }> {
  if (designId.length > MAX_DESIGN_ID_LENGTH) throw new PlatenError("DESIGN_VERSION_NOT_FOUND");
  const current = getDesignHead(workspaceId, designId).then((head) => {
    if (head?.archived) throw new PlatenError("DESIGN_VERSION_NOT_FOUND");
  });
  current.catch(() => undefined); // awaited by the caller, or dropped with a refused request
  const design = await cachedVersion(workspaceId, designId, version);
  if (!design) throw new PlatenError("DESIGN_VERSION_NOT_FOUND");
  return { design, current };
}

/** Found versions by `workspace/design/version`: small records, so many of them (shared/bounded-cache.ts). */
const versionCache = new BoundedCache<string, Promise<DesignVersion | undefined>>({
  maxBytes: 16 * MiB,
  maxEntries: 1000,
});

/**
 * Versions never change once published, so a found one is kept (misses and failed reads are not
 * cached). The read itself is shared: the files of a render batch ask for their version at once, and a
 * cold container read it once per file before.
 */
export function cachedVersion(
  workspaceId: string,
  designId: string,
  version: number,
): Promise<DesignVersion | undefined> {
  return cachedRead(
    versionCache,
    `${workspaceId}/${designId}/${version}`,
    () => getDesignVersion(workspaceId, designId, version),
    { sizeOf: jsonBytes, keep: (found) => found !== undefined },
  );
}

/** OpenAPI getDesignParameters as served: name, type, label, description only when set, spec children. */
export function publicParameterSchema(params: ParameterSpec[]): ParameterSpec[] {
  return params.map((p) => ({
    name: p.name,
    type: p.type,
    label: p.label,
    ...(p.description !== undefined && { description: p.description }),
    ...(p.spec && { spec: publicParameterSchema(p.spec) }),
  }));
}

/**
 * Bundles by their key, bounded by their bytes: a bundle may hold 10 MB of assets, and a count of
 * them (200 before) could add up to 2 GB in a 512 MB function.
 */
const bundleCache = new BoundedCache<string, Promise<DesignBundle>>({ maxBytes: 64 * MiB });

/** What a bundle keeps in memory: its texts (the e-invoice mapping too), its manifest and its assets' bytes. */
export function bundleBytes(bundle: DesignBundle): number {
  let bytes = textBytes(bundle.template) + textBytes(bundle.css) + jsonBytes(bundle.manifest);
  if (bundle.einvoiceMapping !== undefined) bytes += textBytes(bundle.einvoiceMapping);
  for (const [name, asset] of Object.entries(bundle.assets)) bytes += textBytes(name) + asset.body.length;
  return bytes;
}

/**
 * Versions are immutable, so a warm container keeps their bundles (least recently used out first). A version
 * item that carries its bundle (`bundleJson`, design-store.ts) needs no S3 read: a cold container's first
 * render waits for one round trip less.
 */
export function loadBundle(version: DesignVersion): Promise<DesignBundle> {
  const read =
    version.bundleJson === undefined
      ? () => getBundle(version.bundleKey)
      : async () => parseStoredBundle(version.bundleJson!);
  return cachedRead(bundleCache, version.bundleKey, read, { sizeOf: bundleBytes });
}
