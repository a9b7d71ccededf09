import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Debian's qpdf and poppler-utils (`.ci/run` installs them) read what Platen writes: parsers
 * independent of the pdf-lib that wrote it.
 */
/** Runs `use` on the PDF written to a temporary folder, removed afterwards. */
export function withFile<T>(pdf: Uint8Array, use: (path: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "platen-pdf-tools-"));
  try {
    const path = join(dir, "in.pdf");
    writeFileSync(path, pdf);
    return use(path, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A tool's standard output (64 MB at most: qpdf's JSON of a long document is large). */
export const run = (command: string, args: string[]) =>
  execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });

/** `qpdf --show-encryption` as `key: value` lines, e.g. `{R: "6", "print high resolution": "not allowed"}`. */
export function showEncryption(pdf: Uint8Array, password?: string): Record<string, string> {
  const out = withFile(pdf, (path) =>
    run("qpdf", ["--show-encryption", ...(password === undefined ? [] : [`--password=${password}`]), path]),
  );
  const facts: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const m = /^(.+?)(?: =|:)(?: (.*))?$/.exec(line.trim());
    if (m) facts[m[1]!] = m[2] ?? "";
    else if (line.trim()) facts[line.trim()] = ""; // e.g. "Supplied password is owner password"
  }
  return facts;
}

/** The decrypted file (qpdf --decrypt); throws when qpdf refuses the password. */
export function decrypt(pdf: Uint8Array, password?: string): Buffer {
  return withFile(pdf, (path, dir) => {
    const out = join(dir, "out.pdf");
    run("qpdf", ["--decrypt", ...(password === undefined ? [] : [`--password=${password}`]), path, out]);
    return readFileSync(out);
  });
}

/** Whether qpdf opens the file with this password (or none). */
export function opens(pdf: Uint8Array, password?: string): boolean {
  try {
    decrypt(pdf, password);
    return true;
  } catch {
    return false;
  }
}

/** pdfinfo's `Key: value` lines (`-enc UTF-8`). */
export function pdfInfo(pdf: Uint8Array, password?: string): Record<string, string> {
  const out = withFile(pdf, (path) =>
    run("pdfinfo", ["-enc", "UTF-8", ...(password === undefined ? [] : ["-upw", password]), path]),
  );
  return Object.fromEntries(
    out
      .split("\n")
      .map((line) => /^([^:]+):\s*(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

/** pdftotext's text of every page, whitespace removed (CJK runs split by layout still match). */
export function pdfText(pdf: Uint8Array, password?: string): string {
  const out = withFile(pdf, (path) =>
    run("pdftotext", ["-enc", "UTF-8", ...(password === undefined ? [] : ["-upw", password]), path, "-"]),
  );
  return out.replace(/\s+/g, "");
}

/** pdftotext's text of each page (poppler ends every page with a form feed), whitespace removed. */
export function pdfPageTexts(pdf: Uint8Array): string[] {
  const out = withFile(pdf, (path) => run("pdftotext", ["-enc", "UTF-8", path, "-"]));
  return out
    .split("\f")
    .slice(0, -1)
    .map((page) => page.replace(/\s+/g, ""));
}
