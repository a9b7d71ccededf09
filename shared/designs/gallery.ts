import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { ignoreConditionalCheckFailed, isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { newId } from "#shared/ids.ts";
import * as z from "zod";
import type { DesignVersion } from "./design-store.ts";
import { checkDesignText } from "./design-text.ts";
import { storedParameterSpecSchema } from "./stored-parameters.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { designDetailText } from "./design-detail-text.ts";

/**
 * A version a workspace shared in the public gallery. The record points at the version's
 * stored bundle and thumbnail (immutable, never deleted), so a later archive of the design
 * does not take the template away; withdrawing does.
 */
export const galleryTemplateSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  designId: z.string(),
  version: z.number(),
  label: z.string(),
  description: z.string().optional(),
  tags: z.array(z.string()),
  /** The paper size name (`A4`) or `WIDTHxHEIGHT` for a custom size. */
  pageSize: z.string(),
  /** The sharing workspace's name. */
  publisher: z.string(),
  updatedAt: z.string(),
  bundleKey: z.string(),
  thumbnailKey: z.string().optional(),
  sha256: z.string().optional(),
  parameters: z.array(storedParameterSpecSchema),
});
export type GalleryTemplate = z.infer<typeof galleryTemplateSchema>;

/** Templates a workspace may share at once (README.md#the-template-gallery). */
export const MAX_SHARED_TEMPLATES = 50;

/** Every template lives in one partition, read a page at a time (gallery-pages.ts). */
export const GALLERY_PK = "GALLERY";
export const templateKey = (id: string) => ({ pk: GALLERY_PK, sk: `TEMPLATE#${id}` });
/**
 * The workspace's claim on the gallery entry of one of its designs: the entry's id. A design has
 * one claim (a conditional put), and the claims are what the cap counts.
 */
const shareKey = (workspaceId: string, designId: string) => ({ pk: `WS#${workspaceId}`, sk: `SHARED#${designId}` });
const table = () => config().tables.designs;

const pageSizeOf = (page: DesignVersion["manifest"]["page"]) =>
  page.width && page.height ? `${page.width}x${page.height}` : page.size;

/**
 * Shares a version (POST /templates). A design has one gallery entry: sharing it again
 * replaces the entry's version, description and tags, keeping its id. A design not yet shared
 * takes one of the workspace's MAX_SHARED_TEMPLATES places, else 409 TEMPLATE_LIMIT_EXCEEDED.
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
  const claimed = await sharedTemplateId(input.workspaceId, version.designId);
  const existing = claimed ? await findTemplate(claimed) : undefined;
  // The same schema as every other route's label and description, before anything is written.
  const text = checkDesignText({
    label: input.label,
    description: input.description ?? existing?.description ?? version.manifest.description,
  });
  const id = claimed ?? (await claimPlace(input.workspaceId, version.designId, clock));
  const template: GalleryTemplate = {
    id,
    workspaceId: input.workspaceId,
    designId: version.designId,
    version: version.version,
    label: text.label!,
    ...(text.description !== undefined && { description: text.description }),
    tags: [...new Set(input.tags ?? existing?.tags ?? [])],
    pageSize: pageSizeOf(version.manifest.page),
    publisher: input.publisher,
    updatedAt: clock.now().toISOString(),
    bundleKey: version.bundleKey,
    ...(version.thumbnailKey && { thumbnailKey: version.thumbnailKey }),
    ...(version.sha256 && { sha256: version.sha256 }),
    parameters: version.manifest.parameters,
  };
  await awsClients().ddb.send(new PutCommand({ TableName: table(), Item: { ...templateKey(id), ...template } }));
  return template;
}

/** The id of the gallery entry of a design of the workspace, if it has one (one read). */
export async function sharedTemplateId(workspaceId: string, designId: string): Promise<string | undefined> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: table(), Key: shareKey(workspaceId, designId), ConsistentRead: true }),
  );
  return out.Item?.templateId as string | undefined;
}

/** The design's gallery entry, if the workspace shares it (the share form's defaults). */
export async function templateOfDesign(workspaceId: string, designId: string): Promise<GalleryTemplate | undefined> {
  const id = await sharedTemplateId(workspaceId, designId);
  return id ? findTemplate(id) : undefined;
}

/**
 * Claims a place for a design's first share. The claim is written first and the claims counted
 * after it (consistent reads): of racing shares past the cap, each one sees the others' claims
 * and steps back, so the workspace never holds more than the cap.
 */
async function claimPlace(workspaceId: string, designId: string, clock: Clock): Promise<string> {
  const templateId = newTemplateId(clock);
  try {
    await awsClients().ddb.send(
      new PutCommand({
        TableName: table(),
        Item: { ...shareKey(workspaceId, designId), templateId, designId },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    // A share of the same design got there first: this one replaces its entry.
    return (await sharedTemplateId(workspaceId, designId)) ?? claimPlace(workspaceId, designId, clock);
  }
  if ((await countClaims(workspaceId)) > MAX_SHARED_TEMPLATES) {
    await releaseClaim(workspaceId, designId, templateId);
    throw new PlatenError("TEMPLATE_LIMIT_EXCEEDED", {
      vars: { limit: MAX_SHARED_TEMPLATES },
      details: [
        {
          field: "designId",
          text: fillBoth(designDetailText.shareLimit, { max: MAX_SHARED_TEMPLATES }),
        },
      ],
    });
  }
  return templateId;
}

async function countClaims(workspaceId: string): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await awsClients().ddb.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :shared)",
        ExpressionAttributeValues: { ":pk": `WS#${workspaceId}`, ":shared": "SHARED#" },
        Select: "COUNT",
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    count += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

/** Removes a design's claim if it still names this entry (a newer share's claim is kept). */
async function releaseClaim(workspaceId: string, designId: string, templateId: string): Promise<void> {
  await awsClients()
    .ddb.send(
      new DeleteCommand({
        TableName: table(),
        Key: shareKey(workspaceId, designId),
        ConditionExpression: "templateId = :id",
        ExpressionAttributeValues: { ":id": templateId },
      }),
    )
    .catch(ignoreConditionalCheckFailed);
}

/**
 * Withdraws a template of the workspace (DELETE /templates/{id}); another workspace's is not
 * found. The entry goes first, then the claim: a claim left by a failure in between is reused
 * when the design is shared again.
 */
export async function withdrawTemplate(workspaceId: string, id: string): Promise<void> {
  // As in getTemplate: a key DynamoDB would refuse (a 500) is simply not a template.
  if (id.length > 64) throw new PlatenError("TEMPLATE_NOT_FOUND");
  let removed: Record<string, unknown> | undefined;
  try {
    const out = await awsClients().ddb.send(
      new DeleteCommand({
        TableName: table(),
        Key: templateKey(id),
        ConditionExpression: "workspaceId = :ws",
        ExpressionAttributeValues: { ":ws": workspaceId },
        ReturnValues: "ALL_OLD",
      }),
    );
    removed = out.Attributes;
  } catch (err) {
    if (isConditionalCheckFailed(err)) throw new PlatenError("TEMPLATE_NOT_FOUND");
    throw err;
  }
  if (typeof removed?.designId === "string") await releaseClaim(workspaceId, removed.designId, id);
}

export async function getTemplate(id: string): Promise<GalleryTemplate> {
  const found = await findTemplate(id);
  if (!found) throw new PlatenError("TEMPLATE_NOT_FOUND");
  return found;
}

async function findTemplate(id: string): Promise<GalleryTemplate | undefined> {
  if (id.length > 64) return undefined;
  const out = await awsClients().ddb.send(new GetCommand({ TableName: table(), Key: templateKey(id) }));
  return out.Item ? pickTemplate(out.Item) : undefined;
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

/** A gallery entry read from the designs table, decoded with `galleryTemplateSchema` (keys left out). */
export function pickTemplate(item: Record<string, unknown>): GalleryTemplate {
  return decodeStoredItem(galleryTemplateSchema, table(), item);
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62^7 ms: the time part of an id lasts until 2081. */
const TIME_SPAN = 62 ** 7;

/**
 * A 16-character id whose first 7 count down with the time of the first share, so the gallery's
 * key order (what its pages follow) is newest first; 9 random characters follow.
 */
function newTemplateId(clock: Clock): string {
  let rest = Math.max(0, TIME_SPAN - 1 - clock.now().getTime());
  let time = "";
  for (let i = 0; i < 7; i++) {
    time = BASE62[rest % 62] + time;
    rest = Math.floor(rest / 62);
  }
  return time + newId(9);
}
