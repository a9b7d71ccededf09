import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The parts of fauxqs' in-memory S3 store this wrapper touches. */
interface S3StoreLike {
  createBucket(name: string): void;
  putObject(
    bucket: string,
    key: string,
    body: Buffer,
    contentType?: string,
    metadata?: Record<string, string>,
  ): unknown;
  deleteObject(bucket: string, key: string): unknown;
  completeMultipartUpload(uploadId: string, parts: unknown): { key?: string; bucket?: string } | unknown;
  getObject(bucket: string, key: string): { body: Buffer; contentType: string; metadata: Record<string, string> };
}

/**
 * fauxqs keeps S3 in memory only; the local stack must keep generated files across
 * restarts (nothing lost). This loads every object from `dir` into fauxqs' own store at
 * start and writes each put/delete through to disk before the S3 call answers
 * (write-then-rename, so a crash never leaves a torn object).
 *
 * fauxqs does not export its store class, so it is loaded from the package's dist by path
 * (pinned fauxqs 1.x; test/unit/persistent-s3-store.test.ts and test/integration/restart.test.ts cover it).
 */
export async function createPersistentS3Store(dir: string): Promise<S3StoreLike> {
  const { S3Store } = (await import(new URL("./s3/s3Store.js", fauxqsDist()).href)) as {
    S3Store: new () => S3StoreLike;
  };
  const store = new S3Store();
  load(store, dir);
  const put = store.putObject.bind(store);
  const del = store.deleteObject.bind(store);
  const complete = store.completeMultipartUpload.bind(store);
  store.putObject = (bucket, key, body, contentType, metadata) => {
    const obj = put(bucket, key, body, contentType, metadata);
    return readFromDisk(
      obj,
      persist(dir, bucket, key, body, contentType ?? "application/octet-stream", metadata ?? {}),
    );
  };
  store.deleteObject = (bucket, key) => {
    const out = del(bucket, key);
    for (const path of filesOf(dir, bucket, key)) rmSync(path, { force: true });
    return out;
  };
  store.completeMultipartUpload = (uploadId, parts) => {
    const out = complete(uploadId, parts) as { bucket?: string; key?: string };
    if (out?.bucket && out.key) {
      const obj = store.getObject(out.bucket, out.key);
      readFromDisk(obj, persist(dir, out.bucket, out.key, obj.body, obj.contentType, obj.metadata));
    }
    return out;
  };
  return store;
}

/** fauxqs' dist folder. vitest's module runner lacks import.meta.resolve: there, the same lookup by hand. */
function fauxqsDist(): URL {
  if (typeof import.meta.resolve === "function") return new URL(".", import.meta.resolve("fauxqs"));
  for (let dir = new URL(".", import.meta.url); dir.pathname !== "/"; dir = new URL("..", dir)) {
    const dist = new URL("node_modules/fauxqs/dist/", dir);
    if (existsSync(dist)) return dist;
  }
  throw new Error("fauxqs is not installed (npm ci)");
}

/** One file per object: a JSON line (content type, metadata), then the bytes. "@" never survives encodeURIComponent, so no key's file ends like this. */
const OBJECT_SUFFIX = "@object";
/**
 * Every file an object may have: this format's, and the older body + `.meta.json` pair. The
 * suffix goes on before `join`, which would resolve keys "." and ".." out of the bucket.
 */
const filesOf = (dir: string, bucket: string, key: string) => {
  const name = encodeURIComponent(key);
  const current = join(dir, bucket, `${name}${OBJECT_SUFFIX}`);
  return name === "." || name === ".."
    ? [current]
    : [current, join(dir, bucket, name), join(dir, bucket, `${name}.meta.json`)];
};

interface StoredFile {
  path: string;
  /** Where the object's bytes start in the file. */
  offset: number;
}

/**
 * The object's bytes are served from its file instead of being kept in memory: a long-running
 * `npm start` would otherwise hold every PDF it ever generated in RAM.
 */
function readFromDisk<T>(obj: T, file: StoredFile): T {
  Object.defineProperty(obj, "body", {
    get: () => readFileSync(file.path).subarray(file.offset),
    enumerable: true,
    configurable: true,
  });
  return obj;
}

/** Write-then-rename of one file, so a crash never leaves a torn object (one file: half the syscalls of a body + meta pair). */
function persist(
  dir: string,
  bucket: string,
  key: string,
  body: Buffer,
  contentType: string,
  metadata: Record<string, string>,
): StoredFile {
  const [path, ...older] = filesOf(dir, bucket, key);
  const head = Buffer.from(`${JSON.stringify({ contentType, metadata })}\n`, "utf8");
  const bytes = Buffer.concat([head, body]);
  try {
    writeFileSync(`${path}.tmp`, bytes);
  } catch (err) {
    // The bucket's folder is made on its first object (no mkdir call on every put).
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(join(dir, bucket), { recursive: true });
    writeFileSync(`${path}.tmp`, bytes);
  }
  renameSync(`${path}.tmp`, path!);
  for (const old of older) rmSync(old, { force: true });
  return { path: path!, offset: head.length };
}

function load(store: S3StoreLike, dir: string) {
  mkdirSync(dir, { recursive: true });
  for (const bucket of readdirSync(dir)) {
    store.createBucket(bucket);
    for (const file of readdirSync(join(dir, bucket))) {
      if (file.endsWith(".meta.json") || file.endsWith(".tmp")) continue;
      const path = join(dir, bucket, file);
      const bytes = readFileSync(path);
      if (file.endsWith(OBJECT_SUFFIX)) {
        const offset = bytes.indexOf(0x0a) + 1;
        const meta = parseMeta(bytes.subarray(0, offset).toString("utf8"));
        const key = decodeURIComponent(file.slice(0, -OBJECT_SUFFIX.length));
        readFromDisk(store.putObject(bucket, key, bytes.subarray(offset), meta.contentType, meta.metadata), {
          path,
          offset,
        });
      } else if (!existsSync(`${path}${OBJECT_SUFFIX}`)) {
        // Written by an earlier version: the bytes alone, metadata beside them (unless a crash
        // left it next to its replacement, which wins).
        const meta = parseMeta(readText(`${path}.meta.json`));
        readFromDisk(store.putObject(bucket, decodeURIComponent(file), bytes, meta.contentType, meta.metadata), {
          path,
          offset: 0,
        });
      }
    }
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "{}";
  }
}

function parseMeta(text: string): { contentType?: string; metadata?: Record<string, string> } {
  try {
    const meta = JSON.parse(text);
    return typeof meta === "object" && meta !== null ? meta : {};
  } catch {
    return {};
  }
}
