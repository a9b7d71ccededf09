import { beforeAll, describe, expect, it } from "vitest";
import { buckets, type FunctionAccess, functions, queues, tables } from "#shared/definitions/index.ts";
import { CHROMIUM_PATH } from "../../infra/stack/chromium-layer.ts";
import { RENDER_FONT_DIR } from "../../infra/stack/font-layer.ts";
import { allows, allStatements, asArray, resolveResource, type Statement, statementsByFunction } from "./iam.ts";
import {
  isAssetUploader,
  logicalId,
  resourcesOfType,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
  synthStack,
} from "./synth.ts";

let s: Synthesized;
let byFunction: Map<string, Statement[]>;

beforeAll(() => {
  s = synthStack();
  byFunction = statementsByFunction(s.json);
}, SYNTH_TIMEOUT_MS);

const lambda = (id: string) => s.json.Resources[logicalId(s.stack, s.stack.functions[id]!.fn)]!.Properties!;
const tableId = (id: string) => logicalId(s.stack, s.stack.data.tables[id]!.table);
const bucketId = (id: string) => logicalId(s.stack, s.stack.data.buckets[id]!.bucket);
const queueId = (id: string) => logicalId(s.stack, s.stack.data.queues[id]!.queue);

describe("every function of shared/definitions/functions.ts", () => {
  it("exists once, on Node 22 and x86-64", () => {
    // Not aws-s3-deployment's upload function (static-assets.test.ts), which runs only during a deploy.
    const lambdas = resourcesOfType(s.json, "AWS::Lambda::Function").filter(([id]) => !isAssetUploader(id));
    expect(lambdas).toHaveLength(Object.keys(functions).length);
    for (const [, p] of lambdas) {
      expect(p.Runtime).toBe("nodejs22.x");
      expect(p.Architectures).toEqual(["x86_64"]);
      expect(p.Handler).toBe("index.handler");
    }
  });

  it("takes memory and time-out from its definition and logs to its own log group", () => {
    for (const def of Object.values(functions)) {
      const p = lambda(def.id);
      expect(p.MemorySize).toBe(def.memoryMb);
      expect(p.Timeout).toBe(def.timeoutSeconds);
      expect(s.json.Resources[p.LoggingConfig.LogGroup.Ref]!.Type).toBe("AWS::Logs::LogGroup");
      // Source maps cost the Chromium functions' cold starts; their maps still ship.
      expect(p.Environment.Variables.NODE_OPTIONS).toBe(
        "chromium" in def && def.chromium ? undefined : "--enable-source-maps",
      );
    }
  });

  it("gets the stage, the base URL, every table/bucket name and only the queues it sends to or consumes", () => {
    for (const def of Object.values(functions)) {
      const env = lambda(def.id).Environment.Variables;
      expect(env.PLATEN_ENV).toBe("dev");
      expect(JSON.stringify(env.PLATEN_BASE_URL)).toContain("/dev/v1");
      for (const t of Object.values(tables)) expect(env[t.envVar]).toEqual({ Ref: tableId(t.id) });
      for (const b of Object.values(buckets)) expect(env[b.envVar]).toEqual({ Ref: bucketId(b.id) });
      const access: FunctionAccess = def.access;
      const consumes = Object.values(queues)
        .filter((q) => q.consumer === def.id)
        .map((q) => q.id as string);
      const known: readonly string[] = [...(access.queuesSend ?? []), ...consumes];
      for (const q of Object.values(queues)) {
        expect(env[q.envVar], `${def.id} ${q.envVar}`).toEqual(
          known.includes(q.id) ? { Ref: queueId(q.id) } : undefined,
        );
      }
    }
  });

  it("gives chromium functions ≥ 2048 MB, 2048 MiB of /tmp, the font and the unpacked-Chromium layers, launch at init", () => {
    const chromium = Object.values(functions).filter((f) => "chromium" in f && f.chromium);
    expect(chromium.length).toBeGreaterThan(0);
    for (const def of Object.values(functions)) {
      const p = lambda(def.id);
      if (chromium.includes(def as (typeof chromium)[number])) {
        expect(p.MemorySize).toBeGreaterThanOrEqual(2048);
        expect(p.EphemeralStorage).toEqual({ Size: 2048 });
        expect(p.Environment.Variables).toMatchObject({ RENDER_FONT_DIR, CHROMIUM_PATH, RENDER_LAUNCH_AT_INIT: "1" });
        const layers = (p.Layers as { Ref: string }[]).map((l) => s.json.Resources[l.Ref]!);
        expect(layers.map((l) => l.Type)).toEqual(["AWS::Lambda::LayerVersion", "AWS::Lambda::LayerVersion"]);
        expect(layers.map((l) => l.Properties!.Description)).toEqual([
          expect.stringContaining("fonts"),
          expect.stringMatching(/Chromium: @sparticuz\/chromium \d+\.\d+\.\d+, unpacked/),
        ]);
      } else {
        expect(p.EphemeralStorage).toBeUndefined();
        expect(p.Layers).toBeUndefined();
      }
    }
  });
});

describe("least-privilege IAM", () => {
  it("has no Allow statement with a wildcard action", () => {
    const allowed = allStatements(s.json).filter((st) => st.Effect === "Allow");
    expect(allowed.length).toBeGreaterThan(0);
    for (const st of allowed) {
      for (const action of asArray(st.Action)) {
        expect(action).not.toBe("*");
        expect(action).not.toMatch(/^(dynamodb|s3|sqs|lambda|iam|logs):\*$/);
      }
    }
  });

  it("never lets a function delete objects or administer tables", () => {
    for (const [name, statements] of byFunction) {
      for (const b of Object.values(buckets)) {
        expect(allows(statements, "s3:DeleteObject", bucketId(b.id)), `${name} delete ${b.id}`).toBe(false);
        expect(allows(statements, "s3:DeleteObjectVersion", bucketId(b.id))).toBe(false);
      }
      for (const t of Object.values(tables)) {
        for (const action of [
          "dynamodb:DeleteTable",
          "dynamodb:UpdateTable",
          "dynamodb:CreateTable",
          "dynamodb:DeleteBackup",
        ]) {
          expect(allows(statements, action, tableId(t.id)), `${name} ${action} ${t.id}`).toBe(false);
        }
      }
    }
  });

  it("confines a function's object writes to its key prefix (download-files writes only zips/)", () => {
    const statements = byFunction.get("platen-dev-download-files")!;
    const puts = statements.filter((s) => s.Effect === "Allow" && asArray(s.Action).includes("s3:PutObject"));
    expect(puts.length).toBeGreaterThan(0);
    for (const s of puts) for (const r of asArray(s.Resource)) expect(resolveResource(r).suffix).toMatch(/\/zips\/\*$/);
  });

  it("lets the site write only request ZIPs and page images of the files bucket, never the PDFs", () => {
    const statements = byFunction.get("platen-dev-site")!;
    const files = bucketId("files");
    const written = statements
      .filter((s) => s.Effect === "Allow" && asArray(s.Action).includes("s3:PutObject"))
      .flatMap((s) => asArray(s.Resource).map(resolveResource))
      .filter((r) => r.logicalId === files)
      .map((r) => r.suffix);
    expect(written.sort()).toEqual(["/pages/*", "/zips/*"]);
  });

  it("lets every reader of sync file records read the PDFs that commit them (file-store.ts resolveStored); only the dispatcher may not write the records", () => {
    const files = bucketId("files");
    const readers = ["generate-sync", "get-status", "download-files", "dispatch", "site", "sweep"];
    for (const id of readers) {
      const statements = byFunction.get(`platen-dev-${id}`)!;
      expect(allows(statements, "s3:GetObject", files), `${id} reads PDFs`).toBe(true);
      expect(allows(statements, "dynamodb:UpdateItem", tableId("files")), `${id} writes records`).toBe(
        id !== "dispatch",
      );
    }
  });

  it("lets the render worker bring a failed message's retry forward on its own queue (render-queue.ts retryLater), and no other function", () => {
    const render = byFunction.get("platen-dev-render")!;
    expect(allows(render, "sqs:ChangeMessageVisibility", queueId("render"))).toBe(true);
    for (const def of Object.values(functions).filter((d) => d.id !== "render")) {
      const statements = byFunction.get(`platen-dev-${def.id}`)!;
      expect(allows(statements, "sqs:ChangeMessageVisibility", queueId("render")), def.id).toBe(false);
    }
  });

  it("grants exactly the access lists of each definition", () => {
    for (const def of Object.values(functions)) {
      const statements = byFunction.get(`platen-dev-${def.id}`)!;
      // Widened to string lists: table definition ids are plain strings.
      const access = def.access as { [K in keyof FunctionAccess]?: readonly string[] };
      const { tablesRead = [], tablesWrite = [], bucketsRead = [], bucketsWrite = [], queuesSend = [] } = access;
      for (const t of Object.values(tables)) {
        const where = `${def.id} on table ${t.id}`;
        expect(allows(statements, "dynamodb:GetItem", tableId(t.id)), where).toBe(
          tablesRead.includes(t.id) || tablesWrite.includes(t.id),
        );
        expect(allows(statements, "dynamodb:PutItem", tableId(t.id)), where).toBe(tablesWrite.includes(t.id));
      }
      for (const b of Object.values(buckets)) {
        const where = `${def.id} on bucket ${b.id}`;
        expect(allows(statements, "s3:GetObject", bucketId(b.id)), where).toBe(bucketsRead.includes(b.id));
        expect(allows(statements, "s3:PutObject", bucketId(b.id)), where).toBe(bucketsWrite.includes(b.id));
      }
      for (const q of Object.values(queues)) {
        expect(allows(statements, "sqs:SendMessage", queueId(q.id)), `${def.id} on queue ${q.id}`).toBe(
          queuesSend.includes(q.id),
        );
      }
    }
  });

  it("keeps the files bucket unreadable to functions without bucketsRead: files", () => {
    const withoutRead = Object.values(functions).filter(
      (f) => !(f.access as FunctionAccess).bucketsRead?.includes("files"),
    );
    expect(withoutRead.length).toBeGreaterThan(0);
    for (const def of withoutRead) {
      expect(allows(byFunction.get(`platen-dev-${def.id}`)!, "s3:GetObject", bucketId("files")), def.id).toBe(false);
    }
  });
});
