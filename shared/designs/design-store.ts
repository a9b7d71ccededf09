import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients, s3 } from "#shared/aws/clients.ts";
import { updateIf, updateReturning } from "#shared/aws/conditional-update.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { config } from "#shared/aws/config.ts";
import { decodeStoredItem } from "#shared/aws/stored-item.ts";
import * as z from "zod";
import type { DesignBundle, DesignManifest } from "./bundle-schema.ts";

/** The per-workspace head of a design: what the lists show. */
export const designHeadSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  label: z.string(),
  description: z.string().optional(),
  latestVersion: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Who published the latest version (a user's e-mail, an OAuth client's name, or `admin-cli`). */
  updatedBy: z.string().optional(),
  /** Archived designs leave lists and generation; their versions and files stay. */
  archived: z.boolean().optional(),
  /** The S3 key of the current draft (shared/authoring/README.md#drafts); absent → no draft. */
  draftKey: z.string().optional(),
  draftUpdatedAt: z.string().optional(),
});
export type DesignHead = z.infer<typeof designHeadSchema>;

/**
 * A stored version's manifest: an object, taken as the `DesignManifest` that designManifestSchema
 * made of it at publish. Not parsed again: versions are immutable, and today's publish rules (or
 * their defaults) must not refuse or change a version that older rules accepted.
 */
const storedManifestSchema = z.custom<DesignManifest>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "a design manifest (an object)",
);

/** One immutable version (versions are immutable, cacheable forever: README.md#versioning). */
export const designVersionSchema = z.object({
  designId: z.string(),
  workspaceId: z.string(),
  version: z.number(),
  manifest: storedManifestSchema,
  bundleKey: z.string(),
  thumbnailKey: z.string().optional(),
  createdAt: z.string(),
  createdBy: z.string().optional(),
  note: z.string().optional(),
  /** The bundle's content hash (bundle-codec.ts `bundleSha256`): the same files give the same hash. */
  sha256: z.string().optional(),
  /**
   * The stored bundle itself (the JSON of the object at `bundleKey`), kept in the item when it is at most
   * {@link INLINE_BUNDLE_MAX_BYTES}: the version's one read then brings its bundle, and generation asks S3
   * nothing. Absent for larger bundles and for versions published before (until `design inline-bundles`).
   */
  bundleJson: z.string().optional(),
});
export type DesignVersion = z.infer<typeof designVersionSchema>;

/**
 * The design records (heads and versions in the designs table) as publishing, the design API, the
 * studio and generation use them; `dynamoDesignStore` is the DynamoDB adapter, decoding every item it
 * reads with `designHeadSchema` or `designVersionSchema`. Bundles and thumbnails are S3 objects beside it.
 */
export interface DesignStore {
  getHead(ws: string, id: string): Promise<DesignHead | undefined>;
  getVersion(ws: string, id: string, version: number): Promise<DesignVersion | undefined>;
  listHeads(ws: string): Promise<DesignHead[]>;
  /** Archived designs left out. */
  listActiveHeads(ws: string): Promise<DesignHead[]>;
  /** Newest first, a page at a time. */
  listVersions(ws: string, id: string, opts: { limit: number; before?: number }): Promise<DesignVersion[]>;
  /** Fails (ConditionalCheckFailed) if another publish took the number. */
  putVersion(v: DesignVersion): Promise<void>;
  /** Undefined when the design does not exist or is archived. */
  updateFields(
    ws: string,
    id: string,
    fields: { label?: string; description?: string },
    at: string,
  ): Promise<DesignHead | undefined>;
  archiveHead(ws: string, id: string, at: string): Promise<DesignHead | undefined>;
}

const headKey = (ws: string, id: string) => ({ pk: `WS#${ws}`, sk: `DESIGN#${id}` });
const versionPk = (ws: string, id: string) => `DESIGN#${ws}#${id}`;
const versionKey = (ws: string, id: string, v: number) => ({
  pk: versionPk(ws, id),
  sk: `V#${String(v).padStart(10, "0")}`,
});
/**
 * Bundles and thumbnails are stored by content hash: a publish that lost the race for a
 * version number retries with the next number without writing them again, and two versions
 * with the same files share one object.
 */
/**
 * The largest stored bundle a version item carries inline (UTF-8 bytes of its JSON). DynamoDB items hold
 * 400 KB; this leaves the manifest room, and an uncached version read stays within 13 read units.
 */
export const INLINE_BUNDLE_MAX_BYTES = 100 * 1024;

export const bundleObjectKey = (ws: string, id: string, sha256: string) => `designs/${ws}/${id}/b/${sha256}.json`;
export const thumbnailObjectKey = (ws: string, id: string, sha256: string) => `designs/${ws}/${id}/b/${sha256}.png`;
export const draftObjectKey = (ws: string, id: string, revision: string) =>
  `designs/${ws}/${id}/drafts/${revision}.json`;

const table = () => config().tables.designs;
/** The condition of every change to a design: it exists and is not archived. */
const ACTIVE = "attribute_exists(pk) AND (attribute_not_exists(archived) OR archived = :false)";
const bucket = () => config().buckets.designs;

export async function getDesignHead(ws: string, id: string): Promise<DesignHead | undefined> {
  const out = await awsClients().ddb.send(new GetCommand({ TableName: table(), Key: headKey(ws, id) }));
  return out.Item ? pickHead(out.Item) : undefined;
}

export async function getDesignVersion(ws: string, id: string, version: number): Promise<DesignVersion | undefined> {
  const out = await awsClients().ddb.send(new GetCommand({ TableName: table(), Key: versionKey(ws, id, version) }));
  return out.Item ? pickVersion(out.Item) : undefined;
}

/** All heads of a workspace (paging through DynamoDB); workspaces hold few designs. */
export async function listDesignHeads(ws: string): Promise<DesignHead[]> {
  const items = await queryAll({
    TableName: table(),
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: { ":pk": `WS#${ws}`, ":prefix": "DESIGN#" },
  });
  return items.map(pickHead);
}

/** The heads lists and pickers show: archived designs are left out. */
export async function listActiveDesignHeads(ws: string): Promise<DesignHead[]> {
  return (await listDesignHeads(ws)).filter((h) => !h.archived);
}

/** What a versions list reads of each version item: everything but its inline bundle. */
const VERSION_LIST_FIELDS = Object.keys(designVersionSchema.shape).filter((name) => name !== "bundleJson");

/**
 * One page of a design's versions, newest first, without their inline bundles; `before` is the first version
 * of the previous page. A query reads at most 1 MB of items before it projects them, so a page of large
 * items may come in more than one query.
 */
export async function listDesignVersions(
  ws: string,
  id: string,
  opts: { limit: number; before?: number },
): Promise<DesignVersion[]> {
  const names = Object.fromEntries(VERSION_LIST_FIELDS.map((name, i) => [`#f${i}`, name]));
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await awsClients().ddb.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression:
          opts.before === undefined ? "pk = :pk AND begins_with(sk, :v)" : "pk = :pk AND sk BETWEEN :v AND :before",
        ExpressionAttributeValues: {
          ":pk": versionPk(ws, id),
          ":v": "V#",
          ...(opts.before !== undefined && { ":before": versionKey(ws, id, opts.before - 1).sk }),
        },
        ProjectionExpression: Object.keys(names).join(", "),
        ExpressionAttributeNames: names,
        ScanIndexForward: false,
        Limit: opts.limit - items.length,
        ExclusiveStartKey,
      }),
    );
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < opts.limit);
  return items.map(pickVersion);
}

/** Claims a version number: fails (ConditionalCheckFailed) if another publish took it. */
export async function putDesignVersion(v: DesignVersion): Promise<void> {
  await awsClients().ddb.send(
    new PutCommand({
      TableName: table(),
      Item: { ...versionKey(v.workspaceId, v.designId, v.version), ...v },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
}

/**
 * Moves the head to a newly published version; never backwards when publishes race. A new
 * design's head takes its label and description from the bundle; later publishes leave them
 * as they are (they belong to the design and change with PATCH).
 */
export async function advanceDesignHead(head: {
  id: string;
  workspaceId: string;
  label: string;
  description?: string;
  latestVersion: number;
  at: string;
  by?: string;
}): Promise<void> {
  await awsClients().ddb.send(
    new UpdateCommand({
      TableName: table(),
      Key: headKey(head.workspaceId, head.id),
      UpdateExpression:
        "SET id = :id, workspaceId = :ws, label = if_not_exists(label, :label), latestVersion = :v, updatedAt = :u, " +
        "createdAt = if_not_exists(createdAt, :u), updatedBy = :by" +
        (head.description !== undefined ? ", description = if_not_exists(description, :d)" : ""),
      ConditionExpression: "attribute_not_exists(pk) OR latestVersion < :v",
      ExpressionAttributeValues: {
        ":id": head.id,
        ":ws": head.workspaceId,
        ":label": head.label,
        ":v": head.latestVersion,
        ":u": head.at,
        ":by": head.by ?? "",
        ...(head.description !== undefined && { ":d": head.description }),
      },
    }),
  );
}

/** PATCH of a design: label and description only (no new version). Undefined if the design is gone. */
export async function updateDesignFields(
  ws: string,
  id: string,
  fields: { label?: string; description?: string },
  at: string,
): Promise<DesignHead | undefined> {
  const sets = ["updatedAt = :u"];
  const values: Record<string, unknown> = { ":u": at, ":false": false };
  if (fields.label !== undefined) {
    sets.push("label = :label");
    values[":label"] = fields.label;
  }
  if (fields.description !== undefined) {
    sets.push("description = :d");
    values[":d"] = fields.description;
  }
  return conditionalHeadUpdate(ws, id, `SET ${sets.join(", ")}`, values);
}

/** Archives a design (DELETE): it leaves lists and new generation; undefined if not found or archived already. */
export async function archiveDesignHead(ws: string, id: string, at: string): Promise<DesignHead | undefined> {
  return conditionalHeadUpdate(ws, id, "SET archived = :true, archivedAt = :u, updatedAt = :u", {
    ":u": at,
    ":true": true,
    ":false": false,
  });
}

async function conditionalHeadUpdate(
  ws: string,
  id: string,
  update: string,
  values: Record<string, unknown>,
): Promise<DesignHead | undefined> {
  const out = await updateReturning({
    TableName: table(),
    Key: headKey(ws, id),
    UpdateExpression: update,
    ConditionExpression: ACTIVE,
    ExpressionAttributeValues: { ...values, ":false": false },
    ReturnValues: "ALL_NEW",
  });
  return out ? pickHead(out.attributes) : undefined;
}

/**
 * Points the head at a new draft object; answers the key it replaced (to delete), or
 * undefined when the design is gone or archived (the caller deletes its own object).
 */
export async function setDraftKey(
  ws: string,
  id: string,
  draftKey: string,
  at: string,
): Promise<{ previous?: string } | undefined> {
  const out = await updateReturning({
    TableName: table(),
    Key: headKey(ws, id),
    UpdateExpression: "SET draftKey = :k, draftUpdatedAt = :u",
    ConditionExpression: ACTIVE,
    ExpressionAttributeValues: { ":k": draftKey, ":u": at, ":false": false },
    ReturnValues: "UPDATED_OLD",
  });
  if (!out) return undefined;
  const previous = out.attributes.draftKey as string | undefined;
  return previous ? { previous } : {};
}

/**
 * Removes the draft pointer if it still names `draftKey` (a draft saved meanwhile is kept);
 * answers whether it did.
 */
export function clearDraftKey(ws: string, id: string, draftKey: string): Promise<boolean> {
  return updateIf({
    TableName: table(),
    Key: headKey(ws, id),
    UpdateExpression: "REMOVE draftKey, draftUpdatedAt",
    ConditionExpression: "draftKey = :k",
    ExpressionAttributeValues: { ":k": draftKey },
  });
}

/**
 * Bundles are stored as one JSON object (assets base64) so a render needs one GET. Returns that JSON when it is
 * small enough to go inline in the version item too ({@link INLINE_BUNDLE_MAX_BYTES}).
 */
export async function putBundle(key: string, bundle: DesignBundle): Promise<{ inline?: string }> {
  const json = JSON.stringify(bundleToStored(bundle));
  await putObject(key, json, "application/json");
  return inlineBundleJson(json);
}

/** The stored JSON, if a version item may carry it. */
export function inlineBundleJson(json: string): { inline?: string } {
  return Buffer.byteLength(json, "utf8") <= INLINE_BUNDLE_MAX_BYTES ? { inline: json } : {};
}

export async function getBundle(key: string): Promise<DesignBundle> {
  const text = await getObjectText(key);
  if (text === undefined) throw new Error(`design bundle ${key} is missing`);
  return parseStoredBundle(text);
}

/** A stored bundle's JSON (the S3 object's, or a version item's `bundleJson`) as a bundle. */
export const parseStoredBundle = (json: string): DesignBundle => storedToBundle(JSON.parse(json) as StoredBundle);

export interface StoredBundle {
  manifest: DesignManifest;
  template: string;
  css: string;
  /** Only in bundles with an e-invoice: older stored bundles load unchanged. */
  einvoiceMapping?: string;
  assets: Record<string, { contentType: string; body: string }>;
}

export function bundleToStored(bundle: DesignBundle): StoredBundle {
  const assets = Object.fromEntries(
    Object.entries(bundle.assets).map(([name, a]) => [
      name,
      { contentType: a.contentType, body: a.body.toString("base64") },
    ]),
  );
  return {
    manifest: bundle.manifest,
    template: bundle.template,
    css: bundle.css,
    ...(bundle.einvoiceMapping !== undefined && { einvoiceMapping: bundle.einvoiceMapping }),
    assets,
  };
}

export function storedToBundle(raw: StoredBundle): DesignBundle {
  const assets = Object.fromEntries(
    Object.entries(raw.assets).map(([name, a]) => [
      name,
      { contentType: a.contentType, body: Buffer.from(a.body, "base64") },
    ]),
  );
  return { ...raw, assets };
}

export async function putThumbnail(key: string, png: Buffer): Promise<void> {
  await putObject(key, png, "image/png");
}

export async function getThumbnail(key: string): Promise<Buffer | undefined> {
  const { client, sdk } = await s3();
  try {
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket(), Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (err) {
    if ((err as { name?: string }).name === "NoSuchKey") return undefined;
    throw err;
  }
}

export async function putObject(key: string, body: string | Buffer, contentType: string): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(new sdk.PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ContentType: contentType }));
}

/** The object's text, or undefined when it does not exist. */
export async function getObjectText(key: string): Promise<string | undefined> {
  const { client, sdk } = await s3();
  try {
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket(), Key: key }));
    return await out.Body!.transformToString("utf8");
  } catch (err) {
    if ((err as { name?: string }).name === "NoSuchKey") return undefined;
    throw err;
  }
}

export async function deleteObject(key: string): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket(), Key: key }));
}

/** A head item decoded with `designHeadSchema` (keys and attributes it does not name left out). */
function pickHead(item: Record<string, unknown>): DesignHead {
  // A draft's time only with its key; `archived: false` and an empty `updatedBy` read as absent.
  const { draftKey, draftUpdatedAt, archived, updatedBy, ...head } = decodeStoredItem(designHeadSchema, table(), item);
  return {
    ...head,
    ...(updatedBy && { updatedBy }),
    ...(archived && { archived: true }),
    ...(draftKey && { draftKey, draftUpdatedAt }),
  };
}

/** A version item decoded with `designVersionSchema`. */
function pickVersion(item: Record<string, unknown>): DesignVersion {
  return decodeStoredItem(designVersionSchema, table(), item);
}

/** The design records over the designs table. */
export const dynamoDesignStore: DesignStore = {
  getHead: getDesignHead,
  getVersion: getDesignVersion,
  listHeads: listDesignHeads,
  listActiveHeads: listActiveDesignHeads,
  listVersions: listDesignVersions,
  putVersion: putDesignVersion,
  updateFields: updateDesignFields,
  archiveHead: archiveDesignHead,
};
