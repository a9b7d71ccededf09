import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type BucketDefinition,
  buckets,
  type FunctionDefinition,
  functions,
  type QueueDefinition,
  queues,
  routes,
  type TableDefinition,
  tables,
} from "#shared/definitions/index.ts";
import { createTableInputs } from "#infra/local/create-resources.ts";
import { localTableName } from "#infra/local/resource-names.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const configSource = readFileSync(resolve(repoRoot, "shared/aws/config.ts"), "utf8");

const tableDefs = Object.values(tables) as TableDefinition[];
const bucketDefs = Object.values(buckets) as BucketDefinition[];
const queueDefs = Object.values(queues) as QueueDefinition[];
const functionDefs = functions as Record<string, FunctionDefinition>;

/** `render-dlq` → `renderDlq`: the key config().queues uses for a queue id. */
const configKey = (id: string) => id.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** Every environment variable the definitions promise, with the config path that must carry it. */
const envVars: { envVar: string; path: [string, string] }[] = [
  ...tableDefs.map((t) => ({ envVar: t.envVar, path: ["tables", t.id] as [string, string] })),
  ...bucketDefs.map((b) => ({ envVar: b.envVar, path: ["buckets", b.id] as [string, string] })),
  ...queueDefs.flatMap((q) => [
    { envVar: q.envVar, path: ["queues", configKey(q.id)] as [string, string] },
    { envVar: q.dlq.envVar, path: ["queues", configKey(q.dlq.id)] as [string, string] },
  ]),
];

describe("definitions ↔ shared/aws/config.ts", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("has unique env var names", () => {
    const names = envVars.map((e) => e.envVar);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(envVars.map((e) => [e.envVar]))("config.ts reads %s", (name) => {
    expect(configSource).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("config() maps every definition's env var to its config field", async () => {
    for (const { envVar } of envVars) vi.stubEnv(envVar, `value-of-${envVar}`);
    vi.stubEnv("PLATEN_BASE_URL", "https://api.example/v1/");
    vi.resetModules(); // config() caches; load a fresh copy that sees these variables
    const { config } = await import("#shared/aws/config.ts");
    const cfg = config() as unknown as Record<string, Record<string, string>>;
    for (const { envVar, path } of envVars) {
      expect(cfg[path[0]]?.[path[1]], `${path.join(".")} ← ${envVar}`).toBe(`value-of-${envVar}`);
    }
    expect(cfg.baseUrl).toBe("https://api.example/v1");
  });

  it("config() names the missing variable when a required one is unset", async () => {
    for (const { envVar } of envVars) vi.stubEnv(envVar, `value-of-${envVar}`);
    vi.stubEnv("PLATEN_BASE_URL", "https://api.example/v1");
    vi.stubEnv("TABLE_USAGE", "");
    vi.resetModules();
    const { config } = await import("#shared/aws/config.ts");
    expect(() => config()).toThrow(/TABLE_USAGE/);
  });
});

describe("routes and functions", () => {
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r.function]))("%s → %s exists in functions", (_route, fn) => {
    expect(Object.keys(functions)).toContain(fn);
  });

  it("has no duplicate method + path", () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(Object.entries(functionDefs))("%s: entry file exists and exports a handler", async (id, def) => {
    expect(def.id).toBe(id);
    const file = resolve(repoRoot, def.entry);
    expect(existsSync(file), `${def.entry} missing on disk`).toBe(true);
    const mod = (await import(pathToFileURL(file).href)) as { handler?: unknown };
    expect(typeof mod.handler, `${def.entry} must export handler`).toBe("function");
  });

  it("refers only to tables, buckets and queues that exist", () => {
    for (const [id, def] of Object.entries(functionDefs)) {
      const a = def.access;
      for (const t of [...(a.tablesRead ?? []), ...(a.tablesWrite ?? [])])
        expect(tables, `${id} → ${t}`).toHaveProperty(t);
      for (const b of [...(a.bucketsRead ?? []), ...(a.bucketsWrite ?? [])])
        expect(buckets, `${id} → ${b}`).toHaveProperty(b);
      for (const q of a.queuesSend ?? []) expect(queues, `${id} → ${q}`).toHaveProperty(q);
    }
  });
});

describe("queues", () => {
  it.each(queueDefs.map((q) => [q.id, q]))(
    "%s: visibility ≥ 6 × consumer time-out when the consumer exists",
    (_id, q) => {
      const consumers = [q.consumer, q.dlq.consumer].filter((c): c is string => c !== undefined);
      for (const consumer of consumers) {
        const fn = functionDefs[consumer];
        if (!fn) continue; // consumers are wired once their function lands (queues.ts)
        expect(q.visibilityTimeoutSeconds, consumer).toBeGreaterThanOrEqual(6 * fn.timeoutSeconds);
      }
    },
  );

  it.each(queueDefs.map((q) => [q.id, q]))("%s: maxReceiveCount ≥ 5 and a sane batch", (_id, q) => {
    expect(q.maxReceiveCount).toBeGreaterThanOrEqual(5);
    expect(q.batchSize).toBeGreaterThanOrEqual(1);
    expect(q.batchSize).toBeLessThanOrEqual(10); // SQS ReceiveMessage maximum
    expect(q.maxConcurrency).toBeGreaterThanOrEqual(1);
    expect(q.dlq.retentionDays).toBeGreaterThanOrEqual(1);
    expect(q.dlq.retentionDays).toBeLessThanOrEqual(14); // SQS maximum retention
  });

  it("has unique queue ids across main queues and DLQs", () => {
    const ids = queueDefs.flatMap((q) => [q.id, q.dlq.id]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("createTableInputs", () => {
  it("makes one input per table with pk/sk keys and every key attribute declared", () => {
    const inputs = createTableInputs();
    expect(inputs).toHaveLength(tableDefs.length);
    expect(inputs.map((i) => i.TableName).sort()).toEqual(tableDefs.map((t) => localTableName(t.id)).sort());
    for (const input of inputs) {
      expect(input.KeySchema).toEqual([
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ]);
      expect(input.BillingMode).toBe("PAY_PER_REQUEST");
      const declared = new Set(input.AttributeDefinitions!.map((a) => a.AttributeName));
      expect(declared.size, input.TableName).toBe(input.AttributeDefinitions!.length);
      const used = [...input.KeySchema!, ...(input.GlobalSecondaryIndexes ?? []).flatMap((g) => g.KeySchema!)];
      for (const k of used) expect(declared, `${input.TableName} ${k.AttributeName}`).toContain(k.AttributeName);
      // DynamoDB rejects attribute definitions that no key schema uses.
      for (const name of declared)
        expect(
          used.map((k) => k.AttributeName),
          `${input.TableName} ${name}`,
        ).toContain(name);
    }
  });

  it("creates the GSIs as defined and none where none are defined", () => {
    const inputs = createTableInputs();
    for (const t of tableDefs) {
      const input = inputs.find((i) => i.TableName === localTableName(t.id))!;
      if (t.indexes.length === 0) {
        expect(input.GlobalSecondaryIndexes, t.id).toBeUndefined();
        continue;
      }
      expect(input.GlobalSecondaryIndexes, t.id).toEqual(
        t.indexes.map((ix) => ({
          IndexName: ix.name,
          KeySchema: [
            { AttributeName: ix.partitionKey, KeyType: "HASH" },
            ...(ix.sortKey ? [{ AttributeName: ix.sortKey, KeyType: "RANGE" }] : []),
          ],
          Projection: { ProjectionType: "ALL" },
        })),
      );
    }
    const requests = inputs.find((i) => i.TableName === localTableName("requests"))!;
    expect(requests.GlobalSecondaryIndexes?.map((g) => g.IndexName)).toEqual(["active"]);
  });

  it("picks up a GSI added to a cloned definition, leaving the shared one untouched", () => {
    const cloned = structuredClone(tables) as unknown as Record<string, TableDefinition>;
    cloned.usage = { ...cloned.usage!, indexes: [{ name: "byProbe", partitionKey: "probeKey", sortKey: "probeSort" }] };
    const usage = createTableInputs(cloned).find((i) => i.TableName === localTableName("usage"))!;
    expect(usage.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: "byProbe",
        KeySchema: [
          { AttributeName: "probeKey", KeyType: "HASH" },
          { AttributeName: "probeSort", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ]);
    expect(usage.AttributeDefinitions).toContainEqual({ AttributeName: "probeKey", AttributeType: "S" });
    expect(usage.AttributeDefinitions).toContainEqual({ AttributeName: "probeSort", AttributeType: "S" });
    expect(tables.usage.indexes).toEqual([]);
    const original = createTableInputs().find((i) => i.TableName === localTableName("usage"))!;
    expect(original.GlobalSecondaryIndexes).toBeUndefined();
  });
});
