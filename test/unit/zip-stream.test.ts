import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { type ZipSource, zipArchive } from "#shared/zip/zip-stream.ts";

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

describe("zipArchive", () => {
  const a = Buffer.from("%PDF-1.7 first file");
  const b = Buffer.from("%PDF-1.7 second — 二番目 file".repeat(1000));
  const sources = [source("請求書 1.pdf", a), source("b.pdf", b, 4096), source("empty.pdf", Buffer.alloc(0))];

  it("produces exactly the announced length in bytes, which JSZip and Python read back", async () => {
    const archive = await zipArchive(sources);
    const zip = await collect(archive.stream);
    expect(zip.length).toBe(archive.length);
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
    await expect(collect((await zipArchive([wrong])).stream)).rejects.toThrow(/expected/);
  });

  it("opens no member before the archive is read, and each once it is", async () => {
    const opened: string[] = [];
    const tracked = sources.map((s) => ({
      ...s,
      open: () => {
        opened.push(s.name);
        return s.open();
      },
    }));
    const unread = await zipArchive(tracked);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened).toEqual([]);
    unread.stream.destroy(); // an archive already stored in S3 is dropped unread
    await collect((await zipArchive(tracked)).stream);
    expect(opened).toEqual(["請求書 1.pdf", "b.pdf", "empty.pdf"]);
  });

  it("fails the archive, not the process, when a member's read fails midway", async () => {
    const broken: ZipSource = {
      name: "cut.pdf",
      size: 100_000,
      open: async () =>
        (async function* () {
          yield Buffer.alloc(50_000);
          throw new Error("socket hang up");
        })(),
    };
    const { stream } = await zipArchive([source("a.pdf", a), broken]);
    await expect(collect(stream)).rejects.toThrow("socket hang up");
  });

  it("closes the member being read when its reader stops early", async () => {
    let closed = false;
    const endless: ZipSource = {
      name: "big.pdf",
      size: 1 << 30,
      open: async () =>
        (async function* () {
          try {
            for (;;) yield Buffer.alloc(65536);
          } finally {
            closed = true;
          }
        })(),
    };
    const { stream } = await zipArchive([endless]);
    for await (const _ of stream) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(true);
  });
});
