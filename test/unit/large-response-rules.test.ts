import { describe, expect, it } from "vitest";
import { PlatenError } from "#shared/errors/platen-error.ts";
import {
  archiveLinkSettings,
  archiveObjectKey,
  DEFAULT_ZIP_REDIRECT_BYTES,
  DEFAULT_ZIP_URL_SECONDS,
  servedFromS3,
} from "#shared/generation/http/archive-link.ts";
import { planFiles } from "#shared/generation/requests/index.ts";
import type { GenerationRequest } from "#shared/generation/requests/index.ts";
import { fileMappingHeader } from "#shared/generation/http/file-headers.ts";
import {
  checkFileMappingSize,
  DEFAULT_FILE_MAPPING_MAX_BYTES,
  fileMappingMaxBytes,
  predictedFileMappingBytes,
} from "#shared/generation/http/file-mapping-cap.ts";
import { fileEntry } from "#shared/generation/http/sync-response.ts";

/** The size rules of large answers: when a ZIP leaves through S3, when a mapping header is refused. */

const SITE = "https://app.platen.example.com";

type Item = GenerationRequest["contents"][number];
const request = (items: Partial<Item>[]): GenerationRequest => ({
  mode: "multiple",
  designId: "D".repeat(16),
  version: 1,
  contents: items.map(
    (c, i) => ({ fileName: `file-${i}`, shareType: "01", passcodeEnabled: false, params: {}, ...c }) as Item,
  ),
});

/** The header the answer really carries: ids and passcodes drawn at random, as generation does. */
const actualHeaderBytes = (req: GenerationRequest) =>
  fileMappingHeader(planFiles(req, "R".repeat(16), SITE).files.map(fileEntry)).length;

describe("ZIPs served from S3 (PLATEN_ZIP_REDIRECT_BYTES, PLATEN_ZIP_URL_SECONDS)", () => {
  it("defaults to just under Lambda streaming's unthrottled 6 MB and a 5-minute URL", () => {
    expect(archiveLinkSettings({})).toEqual({ redirectBytes: 6_000_000, urlSeconds: 300 });
    expect(DEFAULT_ZIP_REDIRECT_BYTES).toBeLessThan(6 * 1024 * 1024);
    expect(DEFAULT_ZIP_URL_SECONDS).toBe(300);
  });

  it("redirects only ZIPs strictly larger than the threshold", () => {
    const settings = archiveLinkSettings({ PLATEN_ZIP_REDIRECT_BYTES: "1000" });
    expect(servedFromS3(1000, settings)).toBe(false);
    expect(servedFromS3(1001, settings)).toBe(true);
    expect(servedFromS3(7_200_000, archiveLinkSettings({}))).toBe(true);
    expect(servedFromS3(5_900_000, archiveLinkSettings({}))).toBe(false);
  });

  it("reads configured values and refuses nonsense at start-up", () => {
    expect(archiveLinkSettings({ PLATEN_ZIP_REDIRECT_BYTES: "20000", PLATEN_ZIP_URL_SECONDS: "60" })).toEqual({
      redirectBytes: 20000,
      urlSeconds: 60,
    });
    expect(archiveLinkSettings({ PLATEN_ZIP_REDIRECT_BYTES: "" })).toEqual({
      redirectBytes: DEFAULT_ZIP_REDIRECT_BYTES,
      urlSeconds: 300,
    });
    for (const bad of ["0", "-5", "1.5", "6MB", "abc"])
      expect(() => archiveLinkSettings({ PLATEN_ZIP_REDIRECT_BYTES: bad }), bad).toThrow(
        /PLATEN_ZIP_REDIRECT_BYTES must be a positive integer/,
      );
    expect(() => archiveLinkSettings({ PLATEN_ZIP_URL_SECONDS: "604801" })).toThrow(/at most 604800/);
    expect(archiveLinkSettings({ PLATEN_ZIP_URL_SECONDS: "604800" }).urlSeconds).toBe(604800);
  });

  it("keeps each request's ZIP under its workspace in the zips/ prefix (the lifecycle rule's prefix)", () => {
    expect(archiveObjectKey("W1", "R1")).toBe("zips/W1/R1.zip");
    expect(archiveObjectKey("W1", "R1")).not.toBe(archiveObjectKey("W2", "R1"));
  });
});

describe("X-File-Mapping cap (PLATEN_FILE_MAPPING_MAX_BYTES)", () => {
  it("predicts the header's exact length before any id or passcode exists", () => {
    const cases = [
      request(Array.from({ length: 100 }, (_, i) => ({ fileName: `invoice-${i}` }))),
      request([{ fileName: "請求書 2025年4月 🎉 & Co; 'v2' = 100%", shareType: "03", passcodeEnabled: true }]),
      request([
        { fileName: "a", passthrough: { orderId: "  ORD-1  ", n: 1.5e300, 顧客: "山田 & 太郎" }, shareType: "02" },
        { fileName: "b", passcodeEnabled: true },
      ]),
    ];
    for (const req of cases) expect(predictedFileMappingBytes(req, SITE)).toBe(actualHeaderBytes(req));
  });

  it("leaves room for a 100-file request with ordinary names (the spec's maximum, as the bench and sync-output send it)", () => {
    const ordinary = request(Array.from({ length: 100 }, (_, i) => ({ fileName: `invoice-${i}` })));
    expect(predictedFileMappingBytes(ordinary, "http://localhost:54321")).toBeLessThan(
      DEFAULT_FILE_MAPPING_MAX_BYTES / 2,
    );
    const japanese = request(
      Array.from({ length: 100 }, (_, i) => ({
        fileName: `請求書_2025年4月_株式会社サンプル_${i}`,
        passcodeEnabled: true,
      })),
    );
    expect(predictedFileMappingBytes(japanese, SITE)).toBeLessThan(DEFAULT_FILE_MAPPING_MAX_BYTES);
    expect(() => checkFileMappingSize(japanese, SITE, DEFAULT_FILE_MAPPING_MAX_BYTES)).not.toThrow();
  });

  it("refuses a mapping over the cap with FILE_MAPPING_TOO_LARGE naming both sizes", () => {
    const big = request(Array.from({ length: 100 }, (_, i) => ({ fileName: `${"長".repeat(200)}-${i}` })));
    const size = predictedFileMappingBytes(big, SITE);
    expect(size).toBeGreaterThan(DEFAULT_FILE_MAPPING_MAX_BYTES);
    let caught: unknown;
    try {
      checkFileMappingSize(big, SITE, DEFAULT_FILE_MAPPING_MAX_BYTES);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PlatenError);
    expect((caught as PlatenError).code).toBe("FILE_MAPPING_TOO_LARGE");
    expect((caught as PlatenError).vars).toEqual({ size, limit: DEFAULT_FILE_MAPPING_MAX_BYTES });
    // The boundary is inclusive: exactly the cap passes.
    expect(() => checkFileMappingSize(big, SITE, size)).not.toThrow();
    expect(() => checkFileMappingSize(big, SITE, size - 1)).toThrow(PlatenError);
  });

  it("reads the cap from the environment and refuses nonsense", () => {
    expect(fileMappingMaxBytes({})).toBe(64 * 1024);
    expect(fileMappingMaxBytes({ PLATEN_FILE_MAPPING_MAX_BYTES: "4096" })).toBe(4096);
    for (const bad of ["0", "-1", "2.5", "64k"])
      expect(() => fileMappingMaxBytes({ PLATEN_FILE_MAPPING_MAX_BYTES: bad }), bad).toThrow(/positive integer/);
  });
});
