import { createRequire } from "node:module";

type Callback<T> = (err: Error | null, value?: T) => void;

/** The part of dynalite's prefixed LevelDB wrapper that holds table descriptions. */
interface TableDb {
  get(key: string, cb: Callback<unknown>): void;
  put(key: string, value: unknown, cb: Callback<void>): void;
  del(key: string, cb: Callback<void>): void;
}

interface DynaliteDbModule {
  create: ((options: unknown) => { tableDb: TableDb }) & { tableCache?: true };
}

/**
 * dynalite reads the table's description from LevelDB on every item operation — about
 * half of its LevelDB reads, measured. Descriptions change only through Create/Update/
 * DeleteTable, which write through `put`/`del` here, so reads are served from memory and
 * every write drops the entry. A version guards against a read that started before a write
 * filling the cache with the old description. Callers get a fresh copy each time (dynalite
 * decorates the objects it reads).
 */
export function cacheDynaliteTableDescriptions(): void {
  const db = createRequire(import.meta.url)("dynalite/db/index.js") as DynaliteDbModule;
  if (db.create.tableCache) return;
  const create = db.create;
  db.create = Object.assign(
    (options: unknown) => {
      const store = create(options);
      cacheTableDb(store.tableDb);
      return store;
    },
    { tableCache: true as const },
  );
}

function cacheTableDb(tableDb: TableDb): void {
  const cache = new Map<string, string>();
  let version = 0;
  const { get, put, del } = tableDb;
  tableDb.get = (key, cb) => {
    const hit = cache.get(key);
    if (hit !== undefined) return process.nextTick(cb, null, JSON.parse(hit));
    const readAt = version;
    get.call(tableDb, key, (err, value) => {
      if (!err && value !== undefined && readAt === version) cache.set(key, JSON.stringify(value));
      cb(err, value);
    });
  };
  const invalidating =
    <A extends unknown[]>(write: (...args: [...A, Callback<void>]) => void) =>
    (...args: [...A, Callback<void>]) => {
      const cb = args.pop() as Callback<void>;
      version += 1;
      cache.clear();
      write.call(tableDb, ...(args as unknown as A), (err?: Error | null) => {
        version += 1;
        cache.clear();
        cb(err ?? null);
      });
    };
  tableDb.put = invalidating(put);
  tableDb.del = invalidating(del);
}
