import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { escapeHtml } from "#shared/html/html.ts";

/**
 * The local stack's S3: every object a file under `dir`, so generated files survive a restart
 * of `npm start` (fauxqs, which serves SQS, keeps S3 in memory only). It answers, path-style,
 * the S3 calls Platen makes through the SDK — CreateBucket, PutObject, GetObject, HeadObject,
 * DeleteObject, ListObjectsV2 by prefix — and nothing else (501). Each put is written then renamed before it answers,
 * so a crash never leaves a torn object; bodies are read from disk, never held in memory. A put with Object Lock
 * (`x-amz-object-lock-mode`, `x-amz-object-lock-retain-until-date`, as the records bucket's) locks its object: an
 * overwrite or delete before that date is refused with 403 AccessDenied, as compliance mode refuses it in AWS.
 */
export interface PersistentS3 {
  /** Whether the request is for this store: a bucket it has, or one being created. */
  handles(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export function persistentS3(dir: string): PersistentS3 {
  mkdirSync(dir, { recursive: true });
  const buckets = new Set(readdirSync(dir));
  return {
    handles(req) {
      const { bucket, key } = target(req.url ?? "/");
      return bucket !== undefined && (buckets.has(bucket) || (req.method === "PUT" && key === undefined));
    },
    async handle(req, res) {
      const { bucket, key } = target(req.url ?? "/");
      if (bucket === undefined) return s3Error(res, 400, "InvalidBucketName", "The specified bucket is not valid.");
      if (key === undefined) {
        if (req.method === "PUT") return createBucket(res, dir, buckets, bucket);
        if (req.method === "GET" && buckets.has(bucket) && isListV2(req.url ?? ""))
          return listObjects(req, res, dir, bucket);
        return notImplemented(res);
      }
      if (!buckets.has(bucket)) return s3Error(res, 404, "NoSuchBucket", "The specified bucket does not exist.");
      if (req.url?.includes("?") && hasSubresource(req.url)) return notImplemented(res);
      const files = objectFiles(dir, bucket, key);
      if ((req.method === "PUT" || req.method === "DELETE") && lockedUntil(files) !== undefined)
        return s3Error(res, 403, "AccessDenied", "Access Denied because object protected by object lock.");
      if (req.method === "PUT") return putObject(req, res, files);
      if (req.method === "GET" || req.method === "HEAD") return getObject(req, res, files);
      if (req.method === "DELETE") {
        for (const path of [files.current, ...files.older]) rmSync(path, { force: true });
        res.writeHead(204).end();
        return;
      }
      return notImplemented(res);
    },
  };
}

function createBucket(res: ServerResponse, dir: string, buckets: Set<string>, bucket: string): void {
  if (buckets.has(bucket)) {
    const message = "Your previous request to create the named bucket succeeded and you already own it.";
    s3Error(res, 409, "BucketAlreadyOwnedByYou", message);
    return;
  }
  mkdirSync(join(dir, bucket), { recursive: true });
  buckets.add(bucket);
  res.writeHead(200, { Location: `/${bucket}`, "Content-Length": "0" }).end();
}

/** Path-style `/<bucket>/<key>`, decoded without normalising (keys "." and ".." stay keys). */
function target(url: string): { bucket?: string; key?: string } {
  try {
    return decodeTarget(url);
  } catch {
    return {}; // a malformed %-escape: no bucket of ours
  }
}

function decodeTarget(url: string): { bucket?: string; key?: string } {
  const path = url.split("?")[0]!;
  const slash = path.indexOf("/", 1);
  const bucket = decodeURIComponent(slash === -1 ? path.slice(1) : path.slice(1, slash));
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes("..")) return {};
  const key = slash === -1 || slash === path.length - 1 ? undefined : decodeURIComponent(path.slice(slash + 1));
  return { bucket, key };
}

/** Query parameters other than the SDK's `x-id` name a subresource (?acl, ?tagging, ?uploads…) this store lacks. */
const hasSubresource = (url: string) =>
  [...new URLSearchParams(url.split("?")[1]).keys()].some((name) => name !== "x-id");

/** The object's file, and the body + `.meta.json` pair an earlier version of this store wrote. */
interface ObjectFiles {
  current: string;
  older: string[];
}

/** One file per object: a JSON line (content type, metadata, ETag), then the bytes. "@" never survives encodeURIComponent, so no key's file ends like this. */
const OBJECT_SUFFIX = "@object";

/** The suffix goes on before `join`, which would resolve keys "." and ".." out of the bucket. */
function objectFiles(dir: string, bucket: string, key: string): ObjectFiles {
  const name = encodeURIComponent(key);
  const current = join(dir, bucket, `${name}${OBJECT_SUFFIX}`);
  if (name === "." || name === "..") return { current, older: [] };
  return { current, older: [join(dir, bucket, name), join(dir, bucket, `${name}.meta.json`)] };
}

interface Head {
  contentType?: string;
  metadata?: Record<string, string>;
  etag?: string;
  /** Object Lock: the mode and the retain-until date (ISO) the object was put with. */
  lock?: { mode: string; retainUntil: string };
}

/** The retain-until date of an object still locked now (wall clock, as S3's), else undefined. */
function lockedUntil(files: ObjectFiles): string | undefined {
  const lock = readObject(files)?.head.lock;
  return lock && Date.parse(lock.retainUntil) > Date.now() ? lock.retainUntil : undefined;
}

/** The lock a put asks for; a mode without a valid date (or the reverse) locks nothing, as S3 refuses such a put. */
function lockOf(req: IncomingMessage): Head["lock"] {
  const mode = header(req, "x-amz-object-lock-mode");
  const until = Date.parse(header(req, "x-amz-object-lock-retain-until-date") ?? "");
  return mode && Number.isFinite(until) ? { mode, retainUntil: new Date(until).toISOString() } : undefined;
}

async function putObject(req: IncomingMessage, res: ServerResponse, files: ObjectFiles): Promise<void> {
  if (req.headers["x-amz-copy-source"]) return notImplemented(res);
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const raw = Buffer.concat(parts);
  const body = isAwsChunked(req) ? decodeAwsChunked(raw) : raw;
  const etag = `"${createHash("md5").update(body).digest("hex")}"`;
  const lock = lockOf(req);
  const head: Head = {
    contentType: header(req, "content-type") ?? "application/octet-stream",
    metadata: userMetadata(req),
    etag,
    ...(lock && { lock }),
  };
  const bytes = Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`, "utf8"), body]);
  writeFileSync(`${files.current}.tmp`, bytes);
  renameSync(`${files.current}.tmp`, files.current);
  for (const old of files.older) rmSync(old, { force: true });
  res.writeHead(200, { ETag: etag, "Content-Length": "0" }).end();
}

async function getObject(req: IncomingMessage, res: ServerResponse, files: ObjectFiles): Promise<void> {
  const stored = readObject(files);
  if (!stored) {
    if (req.method === "HEAD") return void res.writeHead(404).end();
    return s3Error(res, 404, "NoSuchKey", "The specified key does not exist.");
  }
  const { path, offset, head } = stored;
  const stat = statSync(path);
  res.writeHead(200, {
    "Content-Type": head.contentType ?? "application/octet-stream",
    "Content-Length": String(stat.size - offset),
    "Last-Modified": stat.mtime.toUTCString(),
    ...(head.etag && { ETag: head.etag }),
    ...(head.lock && {
      "x-amz-object-lock-mode": head.lock.mode,
      "x-amz-object-lock-retain-until-date": head.lock.retainUntil,
    }),
    ...Object.fromEntries(Object.entries(head.metadata ?? {}).map(([k, v]) => [`x-amz-meta-${k}`, v])),
  });
  if (req.method === "HEAD" || stat.size === offset) return void res.end();
  // A reader may go before the end (the SDK drops a body nobody reads): not the store's failure.
  await pipeline(createReadStream(path, { start: offset }), res).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ERR_STREAM_PREMATURE_CLOSE") throw err;
  });
}

/** The object's file and where its bytes start: this format first, else an earlier version's pair. */
function readObject(files: ObjectFiles): { path: string; offset: number; head: Head } | undefined {
  if (existsSync(files.current)) {
    const start = readStart(files.current, HEAD_MAX_BYTES);
    const offset = start.indexOf(0x0a) + 1;
    return { path: files.current, offset, head: parseHead(start.subarray(0, offset).toString("utf8")) };
  }
  const [body, meta] = files.older;
  if (!body || !existsSync(body)) return undefined;
  return { path: body, offset: 0, head: parseHead(meta && existsSync(meta) ? readFileSync(meta, "utf8") : "{}") };
}

/** Room for the head line: S3 allows 2 KB of user metadata. */
const HEAD_MAX_BYTES = 16 * 1024;

function readStart(path: string, bytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

function parseHead(text: string): Head {
  try {
    const head = JSON.parse(text);
    return typeof head === "object" && head !== null ? head : {};
  } catch {
    return {};
  }
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const userMetadata = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers)
      .filter(([name]) => name.startsWith("x-amz-meta-"))
      .map(([name, value]) => [name.slice("x-amz-meta-".length), String(value)]),
  );

/** A body the SDK sent as `aws-chunked` (streamed with a checksum trailer): its chunks, without the framing. */
const isAwsChunked = (req: IncomingMessage) =>
  (header(req, "content-encoding") ?? "").includes("aws-chunked") ||
  (header(req, "x-amz-content-sha256") ?? "").startsWith("STREAMING-");

function decodeAwsChunked(raw: Buffer): Buffer {
  const chunks: Buffer[] = [];
  for (let at = 0; at < raw.length; ) {
    const lineEnd = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString("latin1").split(";")[0]!, 16);
    if (!size) break; // the last chunk; trailers follow
    chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(chunks);
}

const isListV2 = (url: string) => new URLSearchParams(url.split("?")[1]).get("list-type") === "2";

/** The most keys one listing answers, as S3's own default. */
const MAX_KEYS = 1000;

/**
 * ListObjectsV2 by prefix (the e-invoice XMLs of a request, for its ZIP): keys in order, `max-keys` at most
 * 1,000, a continuation token that is the last key answered. It reads the bucket's folder, which is fine for
 * a local store.
 */
function listObjects(req: IncomingMessage, res: ServerResponse, dir: string, bucket: string): void {
  const query = new URLSearchParams((req.url ?? "").split("?")[1]);
  const prefix = query.get("prefix") ?? "";
  const after = query.get("continuation-token") ?? query.get("start-after") ?? "";
  const maxKeys = Math.min(MAX_KEYS, Number(query.get("max-keys") ?? MAX_KEYS) || MAX_KEYS);
  const keys = readdirSync(join(dir, bucket))
    .filter((name) => name.endsWith(OBJECT_SUFFIX))
    .map((name) => decodeURIComponent(name.slice(0, -OBJECT_SUFFIX.length)))
    .filter((key) => key.startsWith(prefix) && key > after)
    .sort();
  const page = keys.slice(0, maxKeys);
  const truncated = keys.length > page.length;
  const contents = page.map((key) => {
    const stored = readObject(objectFiles(dir, bucket, key));
    const stat = stored ? statSync(stored.path) : undefined;
    return (
      `<Contents><Key>${escapeHtml(key)}</Key><Size>${stat ? stat.size - stored!.offset : 0}</Size>` +
      `<LastModified>${(stat?.mtime ?? new Date(0)).toISOString()}</LastModified>` +
      `${stored?.head.etag ? `<ETag>${escapeHtml(stored.head.etag)}</ETag>` : ""}</Contents>`
    );
  });
  const body = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
      `<Name>${escapeHtml(bucket)}</Name><Prefix>${escapeHtml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount>` +
      `<MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>` +
      `${truncated ? `<NextContinuationToken>${escapeHtml(page.at(-1)!)}</NextContinuationToken>` : ""}` +
      `${contents.join("")}</ListBucketResult>`,
    "utf8",
  );
  res.writeHead(200, { "Content-Type": "application/xml", "Content-Length": String(body.length) }).end(body);
}

const notImplemented = (res: ServerResponse) =>
  s3Error(res, 501, "NotImplemented", "The local S3 store answers only the calls Platen makes.");

function s3Error(res: ServerResponse, status: number, code: string, message: string): void {
  const body = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
  res.writeHead(status, { "Content-Type": "application/xml", "Content-Length": String(body.length) }).end(body);
}
