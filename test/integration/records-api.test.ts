import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localBucketName } from "#infra/local/resource-names.ts";
import { listAudit } from "#shared/audit/audit-log.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import {
  counterpartySearchForm,
  dynamoRecordStore,
  type KeptRecord,
  keepRecord,
  recordPdfKey,
  s3RecordPdfs,
} from "#shared/records/index.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { writeReceiptRecordDesign } from "../helpers/record-designs.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, publishFolder, type Tenant } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, readErrorBody, syncCaller } from "../helpers/sync-http.ts";

let stack: SharedStack;
let a: Tenant;
let b: Tenant;
/** A third workspace, for corrections: its records leave A's counts alone. */
let c: Tenant;
const generated: { fileId: string; pdf: Buffer }[] = [];

/** 55 more records in workspace A, written through the store as generation writes them: November 2026. */
async function keepVolume(workspaceId: string): Promise<KeptRecord[]> {
  const deps = { store: dynamoRecordStore(), pdfs: s3RecordPdfs(), clock: systemClock };
  const kept: KeptRecord[] = [];
  for (let n = 1; n <= 55; n++) {
    const counterparty = n % 2 ? "株式会社　サンプル" : 'Acme, "Quoted" Ltd.';
    const file = {
      workspaceId,
      designId: "d",
      version: 1,
      requestId: "r",
      fileId: `vol-${workspaceId}-${n}`,
      fileName: `請求書-${n}`,
    };
    const fields = {
      type: "invoice" as const,
      date: `2026-11-${String((n % 28) + 1).padStart(2, "0")}`,
      amount: n * 1000,
      currency: "JPY",
      counterparty,
      counterpartySearch: counterpartySearchForm(counterparty),
      number: `INV-${String(n).padStart(3, "0")}`,
    };
    kept.push(await keepRecord(deps, file, fields, Buffer.from(`%PDF-1.7 volume ${n}`)));
  }
  return kept;
}

const get = (tenant: Tenant, path: string, headers: Record<string, string> = {}) =>
  api(stack, tenant.appKey)(path, { headers });
const search = async (tenant: Tenant, query: string) => {
  const res = await get(tenant, `/records${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    records: {
      recordId: string;
      amount: number;
      date: string;
      number?: string;
      sha256: string;
      downloadPath: string;
    }[];
    next?: string;
  };
};

beforeAll(async () => {
  stack = await sharedStack();
  [a, b, c] = await Promise.all([
    createTenant(stack, "records api A"),
    createTenant(stack, "records api B"),
    createTenant(stack, "records api C"),
  ]);
  const design = await publishFolder(
    stack,
    a.workspaceId,
    writeReceiptRecordDesign(mkdtempSync(join(tmpdir(), "records-api-"))),
  );
  useStackEmulators(stack.dataDir);
  for (const [date, amount] of [
    ["2026-10-05", 3300],
    ["2026-10-20", 8800],
  ] as const) {
    const res = await syncCaller(stack, a.appKey)("single", {
      designId: design.id,
      version: design.version,
      content: { fileName: `領収書-${amount}`, params: { 日付: date, 金額: amount, 宛名: "山田商店" } },
    });
    expect(res.status).toBe(200);
    const [file] = decodeFileMapping(res.headers.get("x-file-mapping"));
    generated.push({ fileId: file!.fileId, pdf: Buffer.from(await res.arrayBuffer()) });
  }
  await keepVolume(a.workspaceId);
}, 180_000);

afterAll(async () => {
  await stack?.release();
});

describe("GET /v1/records", () => {
  it("finds the generated records by date range, with a downloadPath answering the PDF as delivered", async () => {
    const { records } = await search(a, "?dateFrom=2026-10-01&dateTo=2026-10-31");
    expect(records.map((r) => [r.date, r.amount, r.number])).toEqual([
      ["2026-10-05", 3300, "RC-3300"],
      ["2026-10-20", 8800, "RC-8800"],
    ]);
    for (const [i, record] of records.entries()) {
      expect(record.sha256).toBe(createHash("sha256").update(generated[i]!.pdf).digest("hex"));
      const res = await api(stack, a.appKey)(record.downloadPath.replace(/^\/v1/, ""));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      expect(Buffer.from(await res.arrayBuffer()).equals(generated[i]!.pdf)).toBe(true);
    }
  });

  it("pages 50 at a time, sorted by date then number, and applies every condition given", async () => {
    const first = await search(a, "?dateFrom=2026-11-01&dateTo=2026-11-30");
    expect(first.records).toHaveLength(50);
    const second = await search(a, `?dateFrom=2026-11-01&dateTo=2026-11-30&cursor=${first.next}`);
    expect(second.records).toHaveLength(5);
    expect(second.next).toBeUndefined();
    const keys = [...first.records, ...second.records].map((r) => `${r.date} ${r.number}`);
    expect(keys).toEqual([...keys].sort());
    const narrowed = await search(
      a,
      `?dateFrom=2026-11-01&dateTo=2026-11-30&amountMin=10000&amountMax=20000&counterparty=${encodeURIComponent("ｻﾝﾌﾟﾙ")}`,
    );
    expect(narrowed.records.map((r) => r.amount).sort((x, y) => x - y)).toEqual([11000, 13000, 15000, 17000, 19000]);
    const typed = await search(a, "?type=receipt");
    expect(typed.records.map((r) => r.amount)).toEqual([3300, 8800]);
  });

  it("shows a corrected document beside the one it corrects, the newest first, by either search plan", async () => {
    const deps = { store: dynamoRecordStore(), pdfs: s3RecordPdfs(), clock: systemClock };
    for (const [n, number, amount] of [
      [1, "INV-777", 1000],
      [2, "INV-700", 5000],
      [3, "INV-777", 1100],
    ] as const) {
      const file = { workspaceId: c.workspaceId, designId: "d", version: 1, requestId: "r", fileId: `fix-${n}` };
      const fields = {
        type: "invoice" as const,
        date: "2026-12-01",
        amount,
        currency: "JPY",
        counterparty: "山田商店",
        counterpartySearch: counterpartySearchForm("山田商店"),
        number,
      };
      await keepRecord(deps, { ...file, fileName: `請求書-${n}` }, fields, Buffer.from(`%PDF-1.7 fix ${n}`));
    }
    const expected = [
      ["INV-700", 5000],
      ["INV-777", 1100],
      ["INV-777", 1000],
    ];
    const byDate = await search(c, "?dateFrom=2026-12-01&dateTo=2026-12-31");
    expect(byDate.records.map((r) => [r.number, r.amount])).toEqual(expected);
    const byAmount = await search(c, "?dateFrom=2026-12-01&dateTo=2026-12-31&amountMin=500&amountMax=9000");
    expect(byAmount.records.map((r) => [r.number, r.amount])).toEqual(expected);
    const oneNumber = await search(c, "?number=INV-777");
    expect(oneNumber.records.map((r) => r.amount)).toEqual([1100, 1000]);
  });

  it.each([
    ["?dateFrom=2026-11-30&dateTo=2026-11-01", "dateFrom"],
    ["?dateFrom=2026-02-30", "dateFrom"],
    ["?dateTo=yesterday", "dateTo"],
    ["?amountMin=1.5", "amountMin"],
    ["?amountMin=10&amountMax=1", "amountMin"],
    ["?type=memo", "type"],
    ["?currency=yen!", "currency"],
    ["?cursor=not-a-cursor", "cursor"],
  ])("%s is 400 VALIDATION_FAILED naming %s", async (query, field) => {
    const res = await get(a, `/records${query}`);
    const error = await readErrorBody(res);
    expect(res.status).toBe(400);
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details[0]?.field).toBe(field);
  });

  it("shows nothing of another workspace: its search is empty and a record's PDF is 404", async () => {
    expect((await search(b, "")).records).toEqual([]);
    const res = await get(b, `/records/${generated[0]!.fileId}/pdf`);
    expect(res.status).toBe(404);
  });

  it("answers a Bearer token with records:read, and refuses one without it", async () => {
    const reader = await makeConfidentialClient(a.workspaceId, ["records:read"]);
    const generator = await makeConfidentialClient(a.workspaceId, ["pdf:generate"]);
    const withScope = await clientCredentialsToken(stack, reader, "records:read");
    const without = await clientCredentialsToken(stack, generator, "pdf:generate");
    const ok = await api(stack)("/records?type=receipt", { headers: { Authorization: `Bearer ${withScope}` } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { records: unknown[] }).records).toHaveLength(2);
    const refused = await api(stack)("/records", { headers: { Authorization: `Bearer ${without}` } });
    expect(refused.status).toBe(401);
  });
});

describe("GET /v1/records/export", () => {
  it("answers CSV in UTF-8 with a BOM and Japanese headers, a row per record, quoting what needs it", async () => {
    const res = await get(a, "/records/export?dateFrom=2026-11-01&dateTo=2026-11-30&amountMax=2000");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString("utf8").trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "取引年月日,取引金額,通貨,取引先,書類の種類,書類番号,登録番号,ファイル名,SHA-256,記録ID,作成日時",
    );
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 4).join(","))).toEqual([
      "2026-11-02,1000,JPY,株式会社　サンプル",
      '2026-11-03,2000,JPY,"Acme',
    ]);
    expect(lines[2]).toContain('"Acme, ""Quoted"" Ltd."');
  });

  it("answers English headers with lang=en", async () => {
    const text = await (await get(a, "/records/export?lang=en&type=receipt")).text();
    expect(text.replace(/^\uFEFF/, "").split("\r\n")[0]).toBe(
      "Transaction date,Amount,Currency,Counterparty,Document type,Document number,Registration number,File name,SHA-256,Record ID,Created at",
    );
    expect(text.split("\r\n").filter(Boolean)).toHaveLength(3);
  });
});

describe("GET /v1/records/verify", () => {
  it("finds every record intact, then a PDF changed behind the service's back and a broken chain", async () => {
    expect(await (await get(a, "/records/verify")).json()).toEqual({ checked: 57, intact: 57, broken: [] });
    const store = dynamoRecordStore();
    const changed = (await store.find(a.workspaceId, generated[1]!.fileId))!;
    const file = join(
      stack.dataDir,
      "s3",
      localBucketName("records"),
      `${encodeURIComponent(recordPdfKey(changed))}@object`,
    );
    const stored = readFileSync(file);
    writeFileSync(file, Buffer.concat([stored, Buffer.from("\n% appended")]));
    // A record taken out of the chain: the one after it no longer links.
    const removed = (await store.find(a.workspaceId, `vol-${a.workspaceId}-10`))!;
    await awsClients().ddb.send(
      new DeleteCommand({
        TableName: config().tables.records,
        Key: { pk: `WS#${a.workspaceId}`, sk: `SEQ#${String(removed.seq).padStart(12, "0")}` },
      }),
    );
    const next = (await store.find(a.workspaceId, `vol-${a.workspaceId}-11`))!;
    expect(next.seq).toBe(removed.seq + 1);
    const report = (await (await get(a, "/records/verify")).json()) as { checked: number; broken: unknown[] };
    expect(report.checked).toBe(56);
    expect(report.broken).toEqual(
      expect.arrayContaining([
        { recordId: changed.recordId, reason: "pdf-changed" },
        { recordId: next.recordId, reason: "chain-broken" },
      ]),
    );
    expect(report.broken).toHaveLength(2);
  });
});

describe("the audit log", () => {
  it("has an entry for every search, export, verify and download, with who and which filters", async () => {
    const entries = await listAudit(a.workspaceId, systemClock, 100);
    const actions = new Set(entries.map((e) => e.action));
    for (const action of ["records.search", "records.export", "records.verify", "record.download"])
      expect(actions, action).toContain(action);
    const bearer = entries.find((e) => e.action === "records.search" && e.actor.via === "bearer");
    expect(bearer?.detail).toEqual({ type: "receipt" });
    expect(entries.find((e) => e.action === "record.download")?.actor).toEqual({ via: "appkey" });
  });
});
