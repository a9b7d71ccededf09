import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { type ZipSource, zipLength, zipStream } from "#shared/zip/zip-stream.ts";

const source = (name: string, body: Buffer, chunk = 7): ZipSource => ({
  name,
  size: body.length,
  open: async () =>
    (async function* () {
      for (let i = 0; i < body.length; i += chunk) yield body.subarray(i, i + chunk);
    })(),
});

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe("zipStream", () => {
  const a = Buffer.from("%PDF-1.7 first file");
  const b = Buffer.from("%PDF-1.7 second — 二番目 file".repeat(1000));
  const sources = [source("請求書 1.pdf", a), source("b.pdf", b, 4096), source("empty.pdf", Buffer.alloc(0))];

  it("produces exactly zipLength bytes that JSZip and Python read back", async () => {
    const zip = await collect(zipStream(sources));
    expect(zip.length).toBe(zipLength(sources));
    const read = await JSZip.loadAsync(zip);
    expect(Object.keys(read.files)).toEqual(["請求書 1.pdf", "b.pdf", "empty.pdf"]);
    expect(Buffer.from(await read.file("b.pdf")!.async("uint8array")).equals(b)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "zip-"));
    try {
      const path = join(dir, "t.zip");
      writeFileSync(path, zip);
      // A second, independent reader (CPython's zipfile checks every CRC).
      expect(execFileSync("python3", ["-m", "zipfile", "-t", path]).toString()).toContain("Done testing");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails loudly when a member is not the announced size", async () => {
    const wrong = { ...source("x.pdf", a), size: a.length + 1 };
    await expect(collect(zipStream([wrong]))).rejects.toThrow(/expected/);
  });
});
