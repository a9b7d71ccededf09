import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { newId } from "#shared/ids.ts";
import type { ParameterSpec } from "./bundle-schema.ts";
import type { DesignVersion } from "./design-store.ts";

/**
 * A version a workspace shared in the public gallery. The record points at the version's
 * stored bundle and thumbnail (immutable, never deleted), so a later archive of the design
 * does not take the template away; withdrawing does.
 */
export interface GalleryTemplate {
  id: string;
  workspaceId: string;
  designId: string;
  version: number;
  label: string;
  description?: string;
  tags: string[];
  /** The paper size name (`A4`) or `WIDTHxHEIGHT` for a custom size. */
  pageSize: string;
  /** The sharing workspace's name. */
  publisher: string;
  updatedAt: string;
  bundleKey: string;
  thumbnailKey?: string;
  sha256?: string;
  parameters: ParameterSpec[];
}

/** Every template lives in one partition: the gallery is small, read whole and cached. */
const GALLERY_PK = "GALLERY";
const key = (id: string) => ({ pk: GALLERY_PK, sk: `TEMPLATE#${id}` });
const table = () => config().tables.designs;

const pageSizeOf = (page: DesignVersion["manifest"]["page"]) =>
  page.width && page.height ? `${page.width}x${page.height}` : page.size;

/**
 * Shares a version (POST /templates). A design has one gallery entry: sharing it again
 * replaces the entry's version, description and tags, keeping its id.
 */
export async function shareTemplate(
  input: {
    workspaceId: string;
    publisher: string;
    label: string;
    version: DesignVersion;
    description?: string;
    tags?: string[];
  },
  clock: Clock,
): Promise<GalleryTemplate> {
  const { version } = input;
  const existing = (await allTemplates()).find(
    (t) => t.workspaceId === input.workspaceId && t.designId === version.designId,
  );
  const description = input.description ?? existing?.description ?? version.manifest.description;
  const template: GalleryTemplate = {
    id: existing?.id ?? newId(),
    workspaceId: input.workspaceId,
    designId: version.designId,
    version: version.version,
    label: input.label,
    ...(description !== undefined && { description }),
    tags: [...new Set(input.tags ?? existing?.tags ?? [])],
    pageSize: pageSizeOf(version.manifest.page),
    publisher: input.publisher,
    updatedAt: clock.now().toISOString(),
    bundleKey: version.bundleKey,
    ...(version.thumbnailKey && { thumbnailKey: version.thumbnailKey }),
    ...(version.sha256 && { sha256: version.sha256 }),
    parameters: version.manifest.parameters,
  };
  await awsClients().ddb.send(new PutCommand({ TableName: table(), Item: { ...key(template.id), ...template } }));
  forgetCache();
  return template;
}

/** Withdraws a template of the workspace (DELETE /templates/{id}); another workspace's is not found. */
export async function withdrawTemplate(workspaceId: string, id: string): Promise<void> {
  // As in getTemplate: a key DynamoDB would refuse (a 500) is simply not a template.
  if (id.length > 64) throw new PlatenError("TEMPLATE_NOT_FOUND");
  try {
    await awsClients().ddb.send(
      new DeleteCommand({
        TableName: table(),
        Key: key(id),
        ConditionExpression: "workspaceId = :ws",
        ExpressionAttributeValues: { ":ws": workspaceId },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name === "ConditionalCheckFailedException")
      throw new PlatenError("TEMPLATE_NOT_FOUND");
    throw err;
  }
  forgetCache();
}

export async function getTemplate(id: string): Promise<GalleryTemplate> {
  if (id.length > 64) throw new PlatenError("TEMPLATE_NOT_FOUND");
  const out = await awsClients().ddb.send(new GetCommand({ TableName: table(), Key: key(id) }));
  if (!out.Item) throw new PlatenError("TEMPLATE_NOT_FOUND");
  return pick(out.Item);
}

/** What anyone may see of a template (the public list and the detail): no storage keys. */
export function publicTemplate(t: GalleryTemplate, thumbnailUrl: string) {
  return {
    id: t.id,
    label: t.label,
    ...(t.description !== undefined && { description: t.description }),
    tags: t.tags,
    thumbnail: thumbnailUrl,
    pageSize: t.pageSize,
    publisher: t.publisher,
    updatedAt: t.updatedAt,
  };
}

export const GALLERY_PAGE_SIZE = 30;
/** Anonymous reads are served from memory this long: a share or withdrawal shows within it. */
const CACHE_MS = 30_000;
let cache: { at: number; templates: Promise<GalleryTemplate[]> } | undefined;

const forgetCache = () => {
  cache = undefined;
};

/** The whole gallery, newest first; read at most once per CACHE_MS per container. */
export function allTemplates(now = Date.now()): Promise<GalleryTemplate[]> {
  if (!cache || now - cache.at > CACHE_MS) {
    const templates = queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": GALLERY_PK },
    }).then((items) =>
      items.map(pick).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id)),
    );
    templates.catch(forgetCache);
    cache = { at: now, templates };
  }
  return cache.templates;
}

/**
 * GET {auth_url}/public/templates: `q` matches label, description and publisher
 * (case-insensitive), `tag` one tag exactly; 30 per page, `next` names the next page.
 */
export async function searchTemplates(filter: { q?: string; tag?: string; page: number }): Promise<{
  matches: GalleryTemplate[];
  next?: number;
}> {
  const needle = filter.q?.trim().toLowerCase();
  const matches = (await allTemplates()).filter(
    (t) =>
      (!needle || [t.label, t.description ?? "", t.publisher].some((s) => s.toLowerCase().includes(needle))) &&
      (!filter.tag || t.tags.includes(filter.tag)),
  );
  const start = (filter.page - 1) * GALLERY_PAGE_SIZE;
  return {
    matches: matches.slice(start, start + GALLERY_PAGE_SIZE),
    ...(matches.length > start + GALLERY_PAGE_SIZE && { next: filter.page + 1 }),
  };
}

function pick(item: Record<string, unknown>): GalleryTemplate {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as GalleryTemplate;
}
