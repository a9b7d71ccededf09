import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRecords, dynamoRecordStore, type KeptRecord, s3RecordPdfs, verifyRange } from "#shared/records/index.ts";
import { acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, publishFolder, type Tenant, writeDesignFolder } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, readErrorBody, syncCaller } from "../helpers/sync-http.ts";

let stack: SharedStack;
let tenant: Tenant;
let design: { id: string; version: number };

/** A record design: an invoice whose date, amount, counterparty and number come from its params. */
function writeRecordDesign(root: string): string {
  return writeDesignFolder(root, "record-invoice", {
    label: "記録する請求書",
    parameters: [
      { name: "発行日", type: "text", label: "発行日" },
      { name: "合計", type: "number", label: "合計" },
      { name: "請求先", type: "text", label: "請求先" },
      { name: "請求番号", type: "text", label: "請求番号" },
    ],
    record: { type: "invoice", date: "発行日", amount: "合計", counterparty: "請求先", number: "請求番号" },
    template: "<h1>請求書 {{ 請求番号 }}</h1><p>{{ 請求先 }} 様 {{ 合計 }} 円 {{ 発行日 }}</p>",
  });
}

const params = (n: number, over: Record<string, unknown> = {}) => ({
  発行日: `2026-10-${String(n).padStart(2, "0")}`,
  合計: 1000 * n,
  請求先: "株式会社　記録テスト",
  請求番号: `R-${n}`,
  ...over,
});
const body = (n: number, over?: Record<string, unknown>) => ({
  designId: design.id,
  version: design.version,
  content: { fileName: `請求書-${n}`, params: params(n, over) },
});
const records = () => collect(allRecords(dynamoRecordStore(), { workspaceId: tenant.workspaceId }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

beforeAll(async () => {
  stack = await sharedStack();
  tenant = await createTenant(stack, "records generation");
  design = await publishFolder(stack, tenant.workspaceId, writeRecordDesign(mkdtempSync(join(tmpdir(), "records-"))));
  useStackEmulators(stack.dataDir);
}, 120_000);

afterAll(async () => {
  await stack?.release();
});

describe("generation keeps records", () => {
  const kept = new Map<string, KeptRecord>();
  const find = async (fileId: string) => dynamoRecordStore().find(tenant.workspaceId, fileId);

  it("a sync single: one record, with the SHA-256 of exactly the PDF delivered", async () => {
    const res = await syncCaller(stack, tenant.appKey)("single", body(1));
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    const [file] = decodeFileMapping(res.headers.get("x-file-mapping"));
    const record = (await find(file!.fileId))!;
    expect(record).toMatchObject({
      type: "invoice",
      date: "2026-10-01",
      amount: 1000,
      currency: "JPY",
      counterparty: "株式会社 記録テスト",
      counterpartySearch: "株式会社記録テスト",
      number: "R-1",
      designId: design.id,
      version: design.version,
      fileName: "請求書-1",
      sha256: createHash("sha256").update(pdf).digest("hex"),
    });
    kept.set(record.recordId, record);
  });

  it("a sync multiple: one record per file", async () => {
    const res = await syncCaller(stack, tenant.appKey)(
      "multiple",
      { designId: design.id, version: design.version, contents: [2, 3].map((n) => body(n).content) },
      { query: "?response=json" },
    );
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { files: { fileId: string }[] };
    for (const { fileId } of answer.files) kept.set(fileId, (await find(fileId))!);
    expect([...kept.values()].map((r) => r.number)).toEqual(["R-1", "R-2", "R-3"]);
  });

  it("an async multiple: one record per delivered file; the file whose date is not a day fails and makes none", async () => {
    const accepted = await acceptOrFail(stack, tenant.appKey, "multiple", {
      designId: design.id,
      version: design.version,
      contents: [body(4).content, body(5, { 発行日: "2026-02-30" }).content],
    });
    const status = await pollStatus(stack, tenant.appKey, accepted.requestId);
    expect(status.body.status).toBe("completed");
    expect(status.body.failedFiles).toEqual([
      expect.objectContaining({ fileName: "請求書-5", code: "RECORD_FIELDS_INVALID" }),
    ]);
    const [good, bad] = accepted.files;
    expect((await find(good!.fileId))?.number).toBe("R-4");
    expect(await find(bad!.fileId)).toBeUndefined();
  });

  it("a sync file whose amount is not a number: 422 RECORD_FIELDS_INVALID naming record.amount, no record", async () => {
    const before = (await records()).length;
    const res = await syncCaller(stack, tenant.appKey)("single", body(6, { 合計: undefined, 請求先: "x" }));
    const error = await readErrorBody(res);
    expect(res.status).toBe(422);
    expect(error.code).toBe("RECORD_FIELDS_INVALID");
    expect(error.details).toEqual([expect.objectContaining({ field: "record.amount" })]);
    expect((await records()).length).toBe(before);
  });

  it("a replayed request (Idempotency-Key) makes no second record", async () => {
    const call = syncCaller(stack, tenant.appKey);
    const key = { headers: { "Idempotency-Key": `records-${Date.now()}` }, query: "?response=json" };
    const first = (await (await call("single", body(7), key)).json()) as { files: { fileId: string }[] };
    const again = (await (await call("single", body(7), key)).json()) as { files: { fileId: string }[] };
    expect(again.files[0]!.fileId).toBe(first.files[0]!.fileId);
    expect((await records()).filter((r) => r.number === "R-7")).toHaveLength(1);
  });

  it("every record of the workspace is chained and its PDF intact", async () => {
    const all = await records();
    expect(all.map((r) => r.number)).toEqual(["R-1", "R-2", "R-3", "R-4", "R-7"]);
    const report = await verifyRange(
      { store: dynamoRecordStore(), pdfs: s3RecordPdfs() },
      { workspaceId: tenant.workspaceId },
    );
    expect(report).toEqual({ checked: 5, intact: 5, broken: [] });
  });
});
