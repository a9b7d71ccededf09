import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The parts of fauxqs' in-memory S3 store this wrapper touches. */
interface S3StoreLike {
  createBucket(name: string): void;
  putObject(bucket: string, key: string, body: Buffer, contentType?: string, metadata?: Record<string, string>): unknown;
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
 * (pinned fauxqs 1.x; test/integration/local-stack.test.ts covers restart-keeps-data).
 */
export async function createPersistentS3Store(dir: string): Promise<S3StoreLike> {
  const appUrl = import.meta.resolve("fauxqs");
  const { S3Store } = (await import(new URL("./s3/s3Store.js", appUrl).href)) as { S3Store: new () => S3StoreLike };
  const store = new S3Store();
  load(store, dir);
  const put = store.putObject.bind(store);
  const del = store.deleteObject.bind(store);
  const complete = store.completeMultipartUpload.bind(store);
  store.putObject = (bucket, key, body, contentType, metadata) => {
    const obj = put(bucket, key, body, contentType, metadata);
    persist(dir, bucket, key, body, contentType ?? "application/octet-stream", metadata ?? {});
    return readFromDisk(obj, objectPath(dir, bucket, key));
  };
  store.deleteObject = (bucket, key) => {
    const out = del(bucket, key);
    rmSync(objectPath(dir, bucket, key), { force: true });
    rmSync(`${objectPath(dir, bucket, key)}.meta.json`, { force: true });
    return out;
  };
  store.completeMultipartUpload = (uploadId, parts) => {
    const out = complete(uploadId, parts) as { bucket?: string; key?: string };
    if (out?.bucket && out.key) {
      const obj = store.getObject(out.bucket, out.key);
      persist(dir, out.bucket, out.key, obj.body, obj.contentType, obj.metadata);
    }
    return out;
  };
  return store;
}

const objectPath = (dir: string, bucket: string, key: string) => join(dir, bucket, encodeURIComponent(key));

/**
 * The object's bytes are served from its file instead of being kept in memory: a long-running
 * `npm start` would otherwise hold every PDF it ever generated in RAM.
 */
function readFromDisk<T>(obj: T, path: string): T {
  Object.defineProperty(obj, "body", { get: () => readFileSync(path), enumerable: true, configurable: true });
  return obj;
}

function persist(dir: string, bucket: string, key: string, body: Buffer, contentType: string, metadata: Record<string, string>) {
  mkdirSync(join(dir, bucket), { recursive: true });
  const path = objectPath(dir, bucket, key);
  writeFileSync(`${path}.meta.json.tmp`, JSON.stringify({ contentType, metadata }));
  renameSync(`${path}.meta.json.tmp`, `${path}.meta.json`);
  writeFileSync(`${path}.tmp`, body);
  renameSync(`${path}.tmp`, path);
}

function load(store: S3StoreLike, dir: string) {
  mkdirSync(dir, { recursive: true });
  for (const bucket of readdirSync(dir)) {
    store.createBucket(bucket);
    for (const file of readdirSync(join(dir, bucket))) {
      if (file.endsWith(".meta.json") || file.endsWith(".tmp")) continue;
      const path = join(dir, bucket, file);
      const meta = readMeta(`${path}.meta.json`);
      readFromDisk(store.putObject(bucket, decodeURIComponent(file), readFileSync(path), meta.contentType, meta.metadata), path);
    }
  }
}

function readMeta(path: string): { contentType?: string; metadata?: Record<string, string> } {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}
