import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { queryAll } from "#shared/aws/query-all.ts";
import { config } from "#shared/aws/config.ts";
import type { DesignBundle, DesignManifest } from "./bundle-schema.ts";

/** The per-workspace head of a design: what the list endpoint shows. */
export interface DesignHead {
  id: string;
  workspaceId: string;
  label: string;
  latestVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** One immutable version (versions are immutable, cacheable forever: README.md#versioning). */
export interface DesignVersion {
  designId: string;
  workspaceId: string;
  version: number;
  manifest: DesignManifest;
  bundleKey: string;
  thumbnailKey?: string;
  createdAt: string;
}

const headKey = (ws: string, id: string) => ({ pk: `WS#${ws}`, sk: `DESIGN#${id}` });
const versionKey = (ws: string, id: string, v: number) => ({
  pk: `DESIGN#${ws}#${id}`,
  sk: `V#${String(v).padStart(10, "0")}`,
});
export const bundleObjectKey = (ws: string, id: string, v: number) => `designs/${ws}/${id}/${v}/bundle.json`;
export const thumbnailObjectKey = (ws: string, id: string, v: number) => `designs/${ws}/${id}/${v}/thumbnail.png`;

const table = () => config().tables.designs;

export async function getDesignHead(ws: string, id: string): Promise<DesignHead | undefined> {
  const out = await awsClients().ddb.send(new GetCommand({ TableName: table(), Key: headKey(ws, id) }));
  return out.Item ? pickHead(out.Item) : undefined;
}

export async function getDesignVersion(ws: string, id: string, version: number): Promise<DesignVersion | undefined> {
  const out = await awsClients().ddb.send(new GetCommand({ TableName: table(), Key: versionKey(ws, id, version) }));
  return out.Item as DesignVersion | undefined;
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

/** Moves the head forward; never backwards when publishes race. */
export async function putDesignHead(head: DesignHead): Promise<void> {
  await awsClients().ddb.send(
    new UpdateCommand({
      TableName: table(),
      Key: headKey(head.workspaceId, head.id),
      UpdateExpression:
        "SET id = :id, workspaceId = :ws, label = :label, latestVersion = :v, updatedAt = :u, createdAt = if_not_exists(createdAt, :c)",
      ConditionExpression: "attribute_not_exists(pk) OR latestVersion < :v",
      ExpressionAttributeValues: {
        ":id": head.id,
        ":ws": head.workspaceId,
        ":label": head.label,
        ":v": head.latestVersion,
        ":u": head.updatedAt,
        ":c": head.createdAt,
      },
    }),
  );
}

/** Bundles are stored as one JSON object (assets base64) so a render needs one GET. */
export async function putBundle(key: string, bundle: DesignBundle): Promise<void> {
  const assets = Object.fromEntries(
    Object.entries(bundle.assets).map(([name, a]) => [
      name,
      { contentType: a.contentType, body: a.body.toString("base64") },
    ]),
  );
  const Body = JSON.stringify({ manifest: bundle.manifest, template: bundle.template, css: bundle.css, assets });
  await awsClients().s3.send(
    new PutObjectCommand({ Bucket: config().buckets.designs, Key: key, Body, ContentType: "application/json" }),
  );
}

export async function getBundle(key: string): Promise<DesignBundle> {
  const out = await awsClients().s3.send(new GetObjectCommand({ Bucket: config().buckets.designs, Key: key }));
  const raw = JSON.parse(await out.Body!.transformToString("utf8")) as Omit<DesignBundle, "assets"> & {
    assets: Record<string, { contentType: string; body: string }>;
  };
  const assets = Object.fromEntries(
    Object.entries(raw.assets).map(([name, a]) => [
      name,
      { contentType: a.contentType, body: Buffer.from(a.body, "base64") },
    ]),
  );
  return { ...raw, assets };
}

export async function putThumbnail(key: string, png: Buffer): Promise<void> {
  await awsClients().s3.send(
    new PutObjectCommand({ Bucket: config().buckets.designs, Key: key, Body: png, ContentType: "image/png" }),
  );
}

export async function getThumbnail(key: string): Promise<Buffer | undefined> {
  try {
    const out = await awsClients().s3.send(new GetObjectCommand({ Bucket: config().buckets.designs, Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (err) {
    if ((err as { name?: string }).name === "NoSuchKey") return undefined;
    throw err;
  }
}

function pickHead(item: Record<string, unknown>): DesignHead {
  const { id, workspaceId, label, latestVersion, createdAt, updatedAt } = item as unknown as DesignHead;
  return { id, workspaceId, label, latestVersion, createdAt, updatedAt };
}
