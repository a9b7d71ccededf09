import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeLinearOnPage, decodeQr, japanPostBars, type Raster, rasterize } from "../helpers/barcode-decode.ts";
import { acceptOrFail, download, pollStatus } from "../helpers/async-http.ts";
import { pagesUsedNow } from "../helpers/limits-stack.ts";
import type { RunningStack } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { createSeededLike, type SampleName, sampleLabel, sampleParams } from "../helpers/sync-fixtures.ts";
import { decodeFileMapping, type FileEntryJson, readErrorBody, syncCaller } from "../helpers/sync-http.ts";

/**
 * The samples' barcodes over HTTP, read back as a scanner would (page 1 rasterized by pdftoppm, decoded by jsqr
 * and ZXing): the invoice's and the certificate's QR code is the generated file's own `share.url` as the answer
 * names it — sync single, sync multiple and async, each way the answer carries it — and the shipping label
 * prints its SSCC parameter as GS1-128 and the Japan Post customer barcode. A wrong check digit fails the file
 * with nothing billed. One local stack (real Chromium) for the whole file.
 */

type Workspace = RunningStack["localJson"]["workspaces"][number];

let stack: SharedStack;
let demo: Workspace;
let sync: ReturnType<typeof syncCaller>;

const designOf = (name: SampleName) => {
  const design = demo.designs.find((d) => d.label === sampleLabel(name));
  if (!design) throw new Error(`sample ${name} not seeded`);
  return { designId: design.id, version: 1 };
};
const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());
/** The QR code on page 1. */
const qrOf = (pdf: Uint8Array) => decodeQr(rasterize(pdf));

beforeAll(async () => {
  stack = await sharedStack();
  demo = await createSeededLike(stack, "Barcodes");
  sync = syncCaller(stack, demo.appKey);
});

afterAll(() => stack?.release());

/** A file's view on the site, as every answer builds it (OpenAPI generateAsyncSingle). */
const expectViewUrl = (file: FileEntryJson, requestId: string) =>
  expect(file.share.url).toBe(`${stack.localJson.siteUrl}/file/${requestId}/${file.fileId}`);

/** Downloads one stored file (a sync answer's files are stored right after it; readers wait for them). */
async function downloaded(requestId: string, fileId: string): Promise<Uint8Array> {
  const res = await download(stack, demo.appKey, requestId, fileId);
  expect(res.status).toBe(200);
  return bytesOf(res);
}

describe.each(["invoice-ja", "certificate-en"] as const)("%s: the QR code is the file's own share.url", (name) => {
  const content = (fileName: string, extra: Record<string, unknown> = {}) => ({
    fileName,
    params: sampleParams(name),
    ...extra,
  });

  it("sync single, the PDF answered: equal to X-File-Mapping's share.url", async () => {
    const res = await sync("single", { ...designOf(name), content: content(`${name}-single`, { shareType: "03" }) });
    expect(res.status).toBe(200);
    const [file] = decodeFileMapping(res.headers.get("x-file-mapping"));
    expectViewUrl(file!, res.headers.get("request-id")!);
    expect(qrOf(await bytesOf(res))).toBe(file!.share.url);
  });

  it("sync single with ?response=json: equal to the body's share.url, in the stored file", async () => {
    const res = await sync(
      "single",
      { ...designOf(name), content: content(`${name}-json`, { passcodeEnabled: true }) },
      { query: "?response=json" },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { requestId: string; files: FileEntryJson[] };
    const [file] = body.files;
    expectViewUrl(file!, body.requestId);
    // The passcode is answered once and never printed: the code carries the URL alone.
    expect(file!.share.passcode).toEqual(expect.any(String));
    expect(qrOf(await downloaded(body.requestId, file!.fileId))).toBe(file!.share.url);
  });

  it("sync multiple, the ZIP answered: each file's code is its own entry of X-File-Mapping", async () => {
    const res = await sync("multiple", {
      ...designOf(name),
      contents: [content(`${name}-a`), content(`${name}-b`, { shareType: "02" })],
    });
    expect(res.status).toBe(200);
    const mapping = decodeFileMapping(res.headers.get("x-file-mapping"));
    const requestId = res.headers.get("request-id")!;
    const zip = await JSZip.loadAsync(await bytesOf(res));
    for (const file of mapping) {
      expectViewUrl(file, requestId);
      const entry = zip.file(`${file.fileName}.pdf`);
      expect(entry, file.fileName).not.toBeNull();
      expect(qrOf(await entry!.async("uint8array"))).toBe(file.share.url);
    }
    expect(new Set(mapping.map((f) => f.share.url)).size).toBe(2);
  });

  it("async multiple: equal to the 202 body's share.url, rendered by the worker", async () => {
    const accepted = await acceptOrFail(stack, demo.appKey, "multiple", {
      ...designOf(name),
      contents: [content(`${name}-async-a`), content(`${name}-async-b`, { shareType: "03" })],
    });
    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.body.status).toBe("completed");
    for (const file of accepted.files) {
      expectViewUrl(file, accepted.requestId);
      expect(qrOf(await downloaded(accepted.requestId, file.fileId))).toBe(file.share.url);
    }
  });

  it("async single: equal to the 202 body's share.url", async () => {
    const accepted = await acceptOrFail(stack, demo.appKey, "single", {
      ...designOf(name),
      content: content(`${name}-async-single`),
    });
    await pollStatus(stack, demo.appKey, accepted.requestId);
    const [file] = accepted.files;
    expect(qrOf(await downloaded(accepted.requestId, file!.fileId))).toBe(file!.share.url);
  });
});

describe("shipping-label: GS1-128 and the Japan Post customer barcode", () => {
  /** An SSCC with its GS1 check digit: 3, 1, 3, … from the right, to the next multiple of 10. */
  const sscc = (seventeen: string) => {
    const sum = [...seventeen].reverse().reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
    return `${seventeen}${(10 - (sum % 10)) % 10}`;
  };
  const label = (fileName: string, overrides: Record<string, unknown>) => ({
    fileName,
    params: { ...sampleParams("shipping-label"), ...overrides },
  });
  const readLabel = (raster: Raster) => ({ gs1: decodeLinearOnPage(raster, "code128"), bars: japanPostBars(raster) });

  it("sync single: the SSCC parameter decodes as (00) + its 18 digits; the customer barcode has 67 bars", async () => {
    const code = sscc("04912345000054321");
    const res = await sync("single", { ...designOf("shipping-label"), content: label("label-1", { sscc: code }) });
    expect(res.status).toBe(200);
    // ZXing drops the leading FNC1 of GS1-128: the AI and its data remain.
    expect(readLabel(rasterize(await bytesOf(res)))).toEqual({ gs1: `00${code}`, bars: 67 });
  });

  it("async multiple: the same per file", async () => {
    const codes = [sscc("14912345000000007"), sscc("24912345000000008")];
    const accepted = await acceptOrFail(stack, demo.appKey, "multiple", {
      ...designOf("shipping-label"),
      contents: codes.map((code, i) => label(`label-async-${i}`, { sscc: code })),
    });
    await pollStatus(stack, demo.appKey, accepted.requestId);
    for (const [i, file] of accepted.files.entries()) {
      const raster = rasterize(await downloaded(accepted.requestId, file.fileId));
      expect(readLabel(raster)).toEqual({ gs1: `00${codes[i]}`, bars: 67 });
    }
  });

  it("a wrong check digit fails the file with a clear code, sync and async, and bills nothing for it", async () => {
    const good = sscc("04912345000077777");
    const bad = `${good.slice(0, 17)}${(Number(good[17]) + 1) % 10}`;
    const before = await pagesUsedNow(stack, demo.id);

    const refused = await sync("single", { ...designOf("shipping-label"), content: label("bad", { sscc: bad }) });
    const body = await readErrorBody(refused);
    expect({ status: refused.status, code: body.code }).toEqual({ status: 422, code: "TEMPLATE_FAILED" });
    // The message names the value and the symbology, in both languages' bodies.
    expect(body.message).toContain(bad);
    expect(body.message).toMatch(/gs1-128/);

    const accepted = await acceptOrFail(stack, demo.appKey, "multiple", {
      ...designOf("shipping-label"),
      contents: [label("bad-async", { sscc: bad }), label("good-async", { sscc: good })],
    });
    const done = await pollStatus(stack, demo.appKey, accepted.requestId);
    expect(done.body.status).toBe("completed");
    expect(done.body.failedFiles).toEqual([
      expect.objectContaining({
        fileId: accepted.files[0]!.fileId,
        code: "TEMPLATE_FAILED",
        message: expect.stringContaining(bad),
      }),
    ]);
    expect(await pagesUsedNow(stack, demo.id)).toBe(before + 1); // the good label only
  });
});
