import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run, withFile } from "./pdf-tools.ts";

/**
 * A PDF's objects as qpdf reads them (`qpdf --json`, version 2): a parser independent of the code that
 * wrote the file. Strings come as qpdf writes them (`u:` text, `b:` bytes as hex), references as "N 0 R".
 */
export interface QpdfObjects {
  trailer: Record<string, unknown>;
  /** The value of a dictionary or array object, or a stream's dictionary. */
  get(ref: unknown): Record<string, unknown>;
  /** Every object's value (streams: their dictionary). */
  all(): Record<string, unknown>[];
}

export function qpdfObjects(pdf: Uint8Array): QpdfObjects {
  const json = JSON.parse(withFile(pdf, (path) => run("qpdf", ["--json=2", "--json-key=qpdf", path]))) as {
    qpdf: [unknown, Record<string, { value?: unknown; stream?: { dict: unknown } }>];
  };
  const objects = json.qpdf[1];
  const entryValue = (entry: { value?: unknown; stream?: { dict: unknown } } | undefined) =>
    (entry?.value ?? entry?.stream?.dict ?? {}) as Record<string, unknown>;
  return {
    trailer: entryValue(objects.trailer),
    get: (ref) => (typeof ref === "string" ? entryValue(objects[`obj:${ref}`]) : (ref as Record<string, unknown>)),
    all: () =>
      Object.entries(objects)
        .filter(([key]) => key.startsWith("obj:"))
        .map(([, entry]) => entryValue(entry)),
  };
}

/** `pdfdetach -list`: the embedded files' names. */
export function embeddedFileNames(pdf: Uint8Array): string[] {
  const out = withFile(pdf, (path) => run("pdfdetach", ["-enc", "UTF-8", "-list", path]));
  return out
    .split("\n")
    .map((line) => /^\d+: (.*)$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** `pdfdetach -save n`: the bytes of embedded file n (1-based). */
export function embeddedFile(pdf: Uint8Array, n: number): Buffer {
  return withFile(pdf, (path, dir) => {
    const out = join(dir, "file.out");
    run("pdfdetach", ["-save", String(n), "-o", out, path]);
    return readFileSync(out);
  });
}

/** `pdfinfo -meta`: the XMP packet as poppler reads it from the catalog. */
export function xmpPacket(pdf: Uint8Array): string {
  return withFile(pdf, (path) => run("pdfinfo", ["-meta", path]));
}

/** pdftoppm's complaints (stderr) while drawing page 1 at a low resolution, e.g. about a colour profile. */
export function rasterWarnings(pdf: Uint8Array): string {
  return withFile(pdf, (path, dir) => {
    const result = execFileSync("sh", ["-c", `pdftoppm -r 10 -png "${path}" "${join(dir, "page")}" 2>&1 >/dev/null`], {
      encoding: "utf8",
    });
    return result.trim();
  });
}
