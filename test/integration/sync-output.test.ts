import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPdf, listFileRecords } from "#shared/generation/store/index.ts";
import { verifyPasscode } from "#shared/generation/requests/index.ts";
import { type RunningStack, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { compactPdfText, extractPdfText, inspectPdf } from "../helpers/pdf-inspect.ts";
import {
  createSeededLike,
  publishFolder,
  sampleLabel,
  sampleParams,
  writeDesignFolder,
} from "../helpers/sync-fixtures.ts";
import {
  allHeadersText,
  decodeFileMapping,
  ID_16,
  parseContentDisposition,
  postWithLargeHeaders,
  RFC5987_VALUE_CHARS,
  type ShareJson,
  syncCaller,
} from "../helpers/sync-http.ts";

/**
 * Successful sync generation over HTTP (OpenAPI generateSyncSingle, generateSyncMultiple;
 * shared/limits/README.md#service-limits): the PDF and ZIP bodies, their headers, the JSON variant and the
 * stored output. One local stack (real Chromium) for the whole file.
 */

type Workspace = RunningStack["localJson"]["workspaces"][number];

let stack: SharedStack;
let demo: Workspace;
let sync: ReturnType<typeof syncCaller>;
let tmp: string;
let tinyDesign: { id: string; version: number };

const invoiceOf = (ws: Workspace) => ws.designs.find((d) => d.label.includes("請求書"))!;
const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());
/** A value put only into `params`: it must never come back outside the PDF itself. */
const PARAMS_MARKER = "PRM-MARKER-7f3a9c";
/**
 * Legal fileName characters (error FILE_NAME_INVALID lists the others): spaces, ; ' % , = & # + emoji, Hebrew,
 * Arabic and a right-to-left mark.
 */
const HOSTILE_NAME = "Rechnung & Co; 'v2' = 100% + #1, fertig 🎉 שלום مرحبا\u200F end";
const INVOICE_LABEL = sampleLabel("invoice-ja");

beforeAll(async () => {
  stack = await sharedStack();
  demo = await createSeededLike(stack, "Sync output");
  sync = syncCaller(stack, demo.appKey);
  tmp = mkdtempSync(join(tmpdir(), "platen-sync-output-"));
  tinyDesign = await publishFolder(
    stack,
    demo.id,
    writeDesignFolder(tmp, "tiny", {
      label: "TEST tiny",
      parameters: [{ name: "n", type: "text", label: "N" }],
      template: "<p>tiny {{ n }}</p>",
    }),
  );
});

afterAll(async () => {
  await stack?.release();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The invoice sample with a marker in a rendered text field. */
function invoiceParams(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...sampleParams("invoice-ja"), 件名: `2025年4月分 ${PARAMS_MARKER}`, ...overrides };
}

function expectShare(share: ShareJson, requestId: string, fileId: string, shareType: string, passcodeEnabled: boolean) {
  expect(share.shareType).toBe(shareType);
  expect(share.url).toBe(`${stack.localJson.siteUrl}/file/${requestId}/${fileId}`);
  expect(share.passcodeEnabled).toBe(passcodeEnabled);
  if (passcodeEnabled) expect(share.passcode).toEqual(expect.any(String));
  else expect(share).not.toHaveProperty("passcode");
}

describe("POST /file/sync/single: the PDF (OpenAPI generateSyncSingle)", () => {
  const fileName = "請求書 2025年4月 テスト";
  const passthrough = {
    orderId: "  ORD-2025-0042  ",
    empty: "",
    blank: "   ",
    long: "あ".repeat(300),
    amount: 1200.5,
    count: -3,
    tiny: 1.5e-7,
    "顧客 名&=": "山田 & 太郎 = 100%",
  };
  let res: Response;
  let pdf: Uint8Array;

  beforeAll(async () => {
    res = await sync("single", {
      designId: invoiceOf(demo).id,
      version: 1,
      content: { fileName, passthrough, params: invoiceParams() },
    });
    pdf = await bytesOf(res);
  });

  it("answers 200 with a one-page PDF, X-Page-Count and an exact Content-Length", async () => {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(pdf.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
    const facts = await inspectPdf(pdf);
    expect(facts.pageCount).toBe(1);
    expect(res.headers.get("x-page-count")).toBe("1");
    expect(Number(res.headers.get("content-length"))).toBe(pdf.byteLength);
    const exposed = res.headers.get("access-control-expose-headers") ?? "";
    for (const h of ["Content-Disposition", "File-URL", "Request-Id", "X-File-Mapping", "X-Page-Count"])
      expect(exposed).toContain(h);
  });

  it("titles the PDF with the fileName and stores the passthrough as rf:params (see shared/render/README.md#pdf-post-processing-and-rfparams)", async () => {
    const facts = await inspectPdf(pdf);
    expect(facts.title).toBe(fileName);
    expect(facts.searchMetadata).toEqual({
      orderId: "ORD-2025-0042",
      long: "あ".repeat(256),
      amount: "1200.5",
      count: "-3",
      tiny: "0.00000015",
      "顧客 名&=": "山田 & 太郎 = 100%",
    });
    expect(JSON.stringify(facts.searchMetadata)).not.toContain(PARAMS_MARKER);
  });

  it("renders Japanese as extractable text (請求書, the 請求先 value)", async () => {
    const text = await compactPdfText(pdf);
    expect(text).toContain("請求書");
    expect(text).toContain("株式会社サンプル商事");
    expect(text).toContain("株式会社プラテン印刷");
    expect(text).toContain(PARAMS_MARKER);
  });

  it("sends Request-Id, File-URL and an X-File-Mapping that round-trips (OpenAPI generateAsyncSingle)", () => {
    const requestId = res.headers.get("request-id")!;
    expect(requestId).toMatch(ID_16);
    const fileUrl = new URL(res.headers.get("file-url")!);
    expect(fileUrl.protocol).toMatch(/^https?:$/);
    expect(fileUrl.pathname).not.toContain("/file/download");
    const mapping = decodeFileMapping(res.headers.get("x-file-mapping"));
    expect(mapping).toHaveLength(1);
    const [entry] = mapping;
    expect(Object.keys(entry!).sort()).toEqual(["fileId", "fileName", "passthrough", "share"]);
    expect(entry!.fileId).toEqual(expect.any(String));
    expect(entry!.fileName).toBe(fileName);
    expect(entry!.passthrough).toEqual(passthrough); // echoed as supplied: untrimmed, uncut
    expectShare(entry!.share, requestId, entry!.fileId, "workspace", false);
  });

  it("has an attachment Content-Disposition: ASCII fallback plus RFC 5987 filename*", () => {
    const cd = parseContentDisposition(res.headers.get("content-disposition"));
    expect(cd.type).toBe("attachment");
    expect(cd.filename).toMatch(/^[\x20-\x7e]+$/);
    expect(cd.filenameStarRaw).toMatch(RFC5987_VALUE_CHARS);
    expect(cd.filenameStar).toBe(`${fileName}.pdf`);
  });

  it("never echoes params in any header", () => {
    expect(allHeadersText(res)).not.toContain(PARAMS_MARKER);
    expect(allHeadersText(res)).not.toContain("株式会社サンプル商事");
  });

  it("keeps the file for later download: one done record, the same bytes in the file store", async () => {
    const requestId = res.headers.get("request-id")!;
    const [entry] = decodeFileMapping(res.headers.get("x-file-mapping"));
    await settled(stack); // stored after the answer
    const records = await listFileRecords(requestId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      requestId,
      fileId: entry!.fileId,
      fileName,
      status: "done",
      pageCount: 1,
      shareType: "workspace",
    });
    expect(records[0]).not.toHaveProperty("passcodeHash");
    expect(JSON.stringify(records[0])).not.toContain(PARAMS_MARKER);
    expect(Buffer.from(await getPdf(records[0]!.s3Key!)).equals(Buffer.from(pdf))).toBe(true);
  });
});

describe("page count and headers on other inputs", () => {
  it("paginates a 400-row 明細 and X-Page-Count equals the PDF's page count", async () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({
      品名: `品目-${i + 1}`,
      数量: 1,
      単位: "個",
      単価: 100,
      税率: 10,
    }));
    const res = await sync("single", {
      designId: invoiceOf(demo).id,
      version: 1,
      content: { fileName: "long", params: invoiceParams({ 明細: rows }) },
    });
    expect(res.status).toBe(200);
    const pdf = await bytesOf(res);
    const { pageCount } = await inspectPdf(pdf);
    expect(pageCount).toBeGreaterThan(5);
    expect(res.headers.get("x-page-count")).toBe(String(pageCount));
    const pages = await extractPdfText(pdf);
    expect(pages).toHaveLength(pageCount);
    const all = pages.join("").replace(/\s+/g, "");
    expect(all).toContain("品目-1");
    expect(all).toContain("品目-400");
    expect(pages.at(-1)!.replace(/\s+/g, "")).toContain("品目-400");
  });

  it("encodes a hostile but legal fileName in Content-Disposition, X-File-Mapping and the PDF Title", async () => {
    const res = await sync("single", {
      designId: invoiceOf(demo).id,
      version: 1,
      content: { fileName: HOSTILE_NAME, params: invoiceParams() },
    });
    expect(res.status).toBe(200);
    const cd = parseContentDisposition(res.headers.get("content-disposition"));
    expect(cd.type).toBe("attachment");
    expect(cd.filename).toMatch(/^[\x20-\x7e]+$/);
    expect(cd.filenameStarRaw).toMatch(RFC5987_VALUE_CHARS);
    expect(cd.filenameStar).toBe(`${HOSTILE_NAME}.pdf`);
    expect(decodeFileMapping(res.headers.get("x-file-mapping"))[0]!.fileName).toBe(HOSTILE_NAME);
    expect((await inspectPdf(await bytesOf(res))).title).toBe(HOSTILE_NAME);
  });

  it("keeps at most 64 rf:params keys but echoes the whole passthrough (see shared/render/README.md#pdf-post-processing-and-rfparams)", async () => {
    const passthrough = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, `v${i}`]));
    const res = await sync("single", {
      designId: invoiceOf(demo).id,
      version: 1,
      content: { fileName: "many keys", passthrough, params: {} },
    });
    expect(res.status).toBe(200);
    const meta = (await inspectPdf(await bytesOf(res))).searchMetadata!;
    expect(Object.keys(meta)).toHaveLength(64);
    for (const [k, v] of Object.entries(meta)) expect(passthrough[k]).toBe(v);
    expect(decodeFileMapping(res.headers.get("x-file-mapping"))[0]!.passthrough).toEqual(passthrough);
  });

  it("accepts any finite passthrough number, e.g. beyond 2^53 or below 1e-130, and indexes it as a decimal string", async () => {
    const passthrough = { huge: 1e21, unsafe: 2 ** 53, tiny: 1e-200 };
    const res = await sync("single", {
      designId: invoiceOf(demo).id,
      version: 1,
      content: { fileName: "numbers", passthrough, params: {} },
    });
    expect(res.status).toBe(200);
    const meta = (await inspectPdf(await bytesOf(res))).searchMetadata!;
    expect(meta.huge).toBe("1000000000000000000000");
    expect(meta.unsafe).toBe("9007199254740992");
    expect(meta.tiny).toBe(`0.${"0".repeat(199)}1`);
    expect(decodeFileMapping(res.headers.get("x-file-mapping"))[0]!.passthrough).toEqual(passthrough);
  });

  it("ignores Accept: application/json — only ?response=json switches the format", async () => {
    const res = await sync(
      "single",
      { designId: invoiceOf(demo).id, version: 1, content: { fileName: "accept", params: invoiceParams() } },
      { headers: { accept: "application/json" } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect((await inspectPdf(await bytesOf(res))).pageCount).toBe(1);
  });
});

describe("POST /file/sync/multiple: the ZIP (OpenAPI generateSyncMultiple)", () => {
  const contents = [
    { fileName: "請求書 A社", params: invoiceParams() },
    {
      fileName: "Summary.pdf",
      shareType: "02",
      passcodeEnabled: true,
      params: invoiceParams({ 請求先: "株式会社ビー" }),
    },
    { fileName: HOSTILE_NAME, shareType: "03", passthrough: { orderId: "ORD-9" }, params: {} },
  ];
  let res: Response;
  let body: Uint8Array;
  let zip: JSZip;

  beforeAll(async () => {
    res = await sync("multiple", { designId: invoiceOf(demo).id, version: 1, contents });
    body = await bytesOf(res);
    zip = await JSZip.loadAsync(body);
  });

  it("answers a ZIP with Request-Id, exact Content-Length and `<label>_<requestId>.zip` URL-encoded", () => {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(Number(res.headers.get("content-length"))).toBe(body.byteLength);
    const requestId = res.headers.get("request-id")!;
    expect(requestId).toMatch(ID_16);
    const cd = parseContentDisposition(res.headers.get("content-disposition"));
    expect(cd.type).toBe("attachment");
    expect(cd.filenameStarRaw).toMatch(RFC5987_VALUE_CHARS);
    expect(cd.filenameStar).toBe(`${INVOICE_LABEL}_${requestId}.zip`);
    expect(cd.filename).toMatch(/^[\x20-\x7e]+$/);
    expect(decodeURIComponent(cd.filename!)).toBe(`${INVOICE_LABEL}_${requestId}.zip`);
    expect(new URL(res.headers.get("file-url")!).pathname).not.toContain("/file/download");
  });

  it("holds one valid PDF per item, named fileName + .pdf when missing, non-ASCII intact", async () => {
    const names = Object.values(zip.files)
      .filter((f) => !f.dir)
      .map((f) => f.name);
    expect(names).toEqual(["請求書 A社.pdf", "Summary.pdf", `${HOSTILE_NAME}.pdf`]);
    let pages = 0;
    for (const [i, name] of names.entries()) {
      const facts = await inspectPdf(await zip.file(name)!.async("uint8array"));
      expect(facts.title).toBe(contents[i]!.fileName);
      pages += facts.pageCount;
    }
    expect(res.headers.get("x-page-count")).toBe(String(pages));
    const second = await compactPdfText(await zip.file("Summary.pdf")!.async("uint8array"));
    expect(second).toContain("株式会社ビー");
  });

  it("maps every file in X-File-Mapping, in order, with share types 01/02/03 and passcode only when enabled", () => {
    const requestId = res.headers.get("request-id")!;
    const mapping = decodeFileMapping(res.headers.get("x-file-mapping"));
    expect(mapping.map((m) => m.fileName)).toEqual(contents.map((c) => c.fileName));
    expect(new Set(mapping.map((m) => m.fileId)).size).toBe(3);
    expectShare(mapping[0]!.share, requestId, mapping[0]!.fileId, "workspace", false);
    expectShare(mapping[1]!.share, requestId, mapping[1]!.fileId, "invited", true);
    expectShare(mapping[2]!.share, requestId, mapping[2]!.fileId, "public", false);
    expect(mapping[0]).not.toHaveProperty("passthrough");
    expect(mapping[1]).not.toHaveProperty("passthrough");
    expect(mapping[2]!.passthrough).toEqual({ orderId: "ORD-9" });
    expect(allHeadersText(res)).not.toContain(PARAMS_MARKER);
  });

  it("stores one done record per file with pageCount and only a passcode hash", async () => {
    const requestId = res.headers.get("request-id")!;
    const mapping = decodeFileMapping(res.headers.get("x-file-mapping"));
    await settled(stack); // stored after the answer
    const records = await listFileRecords(requestId);
    expect(records).toHaveLength(3);
    const byId = new Map(records.map((r) => [r.fileId, r]));
    for (const [i, entry] of mapping.entries()) {
      const record = byId.get(entry.fileId)!;
      expect(record).toMatchObject({
        requestId,
        fileName: entry.fileName,
        status: "done",
        shareType: entry.share.shareType,
      });
      expect(record.pageCount).toBeGreaterThanOrEqual(1);
      expect(record).not.toHaveProperty("passcode");
      expect(JSON.stringify(record)).not.toContain(PARAMS_MARKER);
      const stored = await getPdf(record.s3Key!);
      const zipped = await zip.file(Object.keys(zip.files)[i]!)!.async("nodebuffer");
      expect(stored.equals(zipped)).toBe(true);
    }
    const passcode = mapping[1]!.share.passcode!;
    const withPasscode = byId.get(mapping[1]!.fileId)!;
    expect(withPasscode.passcodeHash).toEqual(expect.any(String));
    expect(JSON.stringify(withPasscode)).not.toContain(passcode);
    expect(await verifyPasscode(passcode, withPasscode.passcodeHash!)).toBe(true);
    expect(byId.get(mapping[0]!.fileId)).not.toHaveProperty("passcodeHash");
  });

  it("keeps both entries when `a` and `a.pdf` map to the same archive name", async () => {
    const res2 = await sync("multiple", {
      designId: invoiceOf(demo).id,
      version: 1,
      contents: [
        { fileName: "a", params: {} },
        { fileName: "a.pdf", params: {} },
      ],
    });
    expect(res2.status).toBe(200);
    const zip2 = await JSZip.loadAsync(await bytesOf(res2));
    const names = Object.keys(zip2.files);
    expect(names).toHaveLength(2);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(2);
    expect(names).toContain("a.pdf");
  });
});

describe("the largest multiple request (OpenAPI generateSyncMultiple: 1 to 100 contents)", () => {
  it("generates 100 files and maps every one of them", async () => {
    const contents = Array.from({ length: 100 }, (_, i) => ({ fileName: `file-${i}`, params: { n: String(i) } }));
    // Read with node:http and a raised header limit: 100 X-File-Mapping entries exceed fetch's 16 KiB default.
    const res = await postWithLargeHeaders(
      `${stack.baseUrl}/file/sync/multiple`,
      { appkey: demo.appKey, "content-type": "application/json" },
      JSON.stringify({ designId: tinyDesign.id, version: tinyDesign.version, contents }),
    );
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/zip");
    const mapping = decodeFileMapping(String(res.headers["x-file-mapping"]));
    expect(mapping.map((m) => m.fileName)).toEqual(contents.map((c) => c.fileName));
    expect(res.headers["x-page-count"]).toBe("100");
    const zip100 = await JSZip.loadAsync(res.body);
    expect(Object.keys(zip100.files)).toEqual(contents.map((c) => `${c.fileName}.pdf`));
    const last = await compactPdfText(await zip100.file("file-99.pdf")!.async("uint8array"));
    expect(last).toContain("tiny99");
  });
});

describe("?response=json (OpenAPI generateSyncSingle)", () => {
  it("answers the identifiers body for a single request, without params", async () => {
    const res = await sync(
      "single",
      {
        designId: invoiceOf(demo).id,
        version: 1,
        content: { fileName: "json single", shareType: "03", params: invoiceParams() },
      },
      { query: "?response=json" },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const text = await res.text();
    expect(text).not.toContain(PARAMS_MARKER);
    const body = JSON.parse(text);
    const requestId = res.headers.get("request-id")!;
    expect(body.requestId).toBe(requestId);
    expect(body.requestId).toMatch(ID_16);
    expect(new URL(body.fileUrl).protocol).toMatch(/^https?:$/);
    expect(body).not.toHaveProperty("params");
    expect(body.files).toHaveLength(1);
    const [file] = body.files;
    expect(file).toMatchObject({ fileName: "json single", pageCount: 1, share: { shareType: "public" } });
    expect(file.fileId).toBe(decodeFileMapping(res.headers.get("x-file-mapping"))[0]!.fileId);
    expect(file.downloadPath.startsWith(`/v1/file/download/${requestId}/${file.fileId}`)).toBe(true);
    expect(file).not.toHaveProperty("params");
    await settled(stack); // stored after the answer
    expect((await listFileRecords(requestId)).map((r) => r.status)).toEqual(["done"]);
  });

  it("answers one files[] entry per item for a multiple request", async () => {
    const rows = Array.from({ length: 120 }, (_, i) => ({ 品名: `行${i}`, 数量: 1, 単価: 10 }));
    const res = await sync(
      "multiple",
      {
        designId: invoiceOf(demo).id,
        version: 1,
        contents: [
          { fileName: "one", shareType: "02", params: invoiceParams() },
          { fileName: "two", params: invoiceParams({ 明細: rows }) },
        ],
      },
      { query: "?response=json" },
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    const requestId = res.headers.get("request-id")!;
    expect(body.requestId).toBe(requestId);
    expect(body.files.map((f: { fileName: string }) => f.fileName)).toEqual(["one", "two"]);
    expect(body.files.map((f: { share: { shareType: string } }) => f.share.shareType)).toEqual([
      "invited",
      "workspace",
    ]);
    expect(body.files[0].pageCount).toBe(1);
    expect(body.files[1].pageCount).toBeGreaterThan(1);
    expect(Number.isInteger(body.files[1].pageCount)).toBe(true);
    for (const f of body.files)
      expect(f.downloadPath.startsWith(`/v1/file/download/${requestId}/${f.fileId}`)).toBe(true);
    expect(res.headers.get("x-page-count")).toBe(String(body.files[0].pageCount + body.files[1].pageCount));
  });
});
