import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import type { PdfProtection } from "#shared/render/pdf-protect.ts";

/**
 * An async file's `protection` waits for the render worker — another process, maybe hours
 * later — in its file record, sealed (shared/generation/README.md#password-protected-pdfs):
 * AES-256-GCM under a key of its own, derived (HKDF-SHA-256) from the service's sealing key
 * and the file's ids. The file's ids are also the additional data, so a sealed value copied
 * onto another record does not open. The sealing key is created once, by the first
 * acceptance that needs it, in the `requests` table: apart from the `files` table that holds
 * the sealed values, and writable by acceptance and the worker only (the `workspaces` table,
 * where the site's cookie key lives, is read-only to them).
 */
const SEAL_KEY = { pk: "SECRET#protection-seal", sk: "KEY" };
const VERSION = "v1";
let cached: Promise<Buffer> | undefined;

/** The sealed form: `v1.<iv>.<ciphertext>.<tag>`, each base64url. */
export async function sealProtection(protection: PdfProtection, fileRef: FileRef): Promise<string> {
  const key = fileKey(await sealingKey({ create: true }), fileRef);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(additionalData(fileRef));
  const body = Buffer.concat([cipher.update(JSON.stringify(protection), "utf8"), cipher.final()]);
  return [VERSION, iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** @throws when the value was not sealed for this file (tampered, copied, or another key). */
export async function openProtection(sealed: string, fileRef: FileRef): Promise<PdfProtection> {
  const [version, iv, body, tag] = sealed.split(".");
  if (version !== VERSION || !iv || body === undefined || !tag) throw new Error("not a sealed protection");
  const decipher = createDecipheriv(
    "aes-256-gcm",
    fileKey(await sealingKey({ create: false }), fileRef),
    Buffer.from(iv, "base64url"),
  );
  decipher.setAAD(additionalData(fileRef));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  const json = Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  return JSON.parse(json) as PdfProtection;
}

/** The file a sealed value belongs to. */
export interface FileRef {
  requestId: string;
  fileId: string;
}

const additionalData = (ref: FileRef) => Buffer.from(`platen/protection/${ref.requestId}/${ref.fileId}`, "utf8");

const fileKey = (master: Buffer, ref: FileRef) =>
  Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), additionalData(ref), 32));

/**
 * The service's sealing key, cached for the life of the process. Acceptance creates it
 * (a conditional put: every container ends up with the same key); the worker only reads it,
 * since a sealed value can only exist once the key does.
 */
function sealingKey(options: { create: boolean }): Promise<Buffer> {
  cached ??= loadKey(options.create).catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function loadKey(create: boolean): Promise<Buffer> {
  const TableName = config().tables.requests;
  const read = async () =>
    (await awsClients().ddb.send(new GetCommand({ TableName, Key: SEAL_KEY, ConsistentRead: true }))).Item;
  const existing = await read();
  if (typeof existing?.secret === "string") return Buffer.from(existing.secret, "base64");
  if (!create) throw new Error("no protection sealing key");
  try {
    const secret = randomBytes(32).toString("base64");
    await awsClients().ddb.send(
      new PutCommand({ TableName, Item: { ...SEAL_KEY, secret }, ConditionExpression: "attribute_not_exists(pk)" }),
    );
    return Buffer.from(secret, "base64");
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return Buffer.from(String((await read())?.secret), "base64"); // another container won the race
  }
}
