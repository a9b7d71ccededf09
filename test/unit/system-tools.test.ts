import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/** test/system-tools.ts, the first step of `npm test`: a machine without qpdf or poppler learns it in one line. */
const repoRoot = resolve(import.meta.dirname, "../..");
const bin = mkdtempSync(join(tmpdir(), "platen-tools-"));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const check = (path: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "test/system-tools.ts"], {
    cwd: repoRoot,
    env: { ...process.env, PATH: path },
    encoding: "utf8",
  });

describe("npm test's check of its system tools", () => {
  it("passes silently where qpdf and poppler are installed", () => {
    const out = check(process.env.PATH ?? "");
    expect([out.status, out.stdout, out.stderr]).toEqual([0, "", ""]);
  });

  it("stops with one line naming what is missing and the command that installs it", () => {
    const none = check(bin);
    expect(none.status).toBe(1);
    expect(none.stderr.trim().split("\n")).toEqual([
      "npm test: missing qpdf, pdftoppm, pdfinfo, pdftotext, pdfsig, openssl, certutil; install with: sudo apt-get install -y qpdf poppler-utils openssl libnss3-tools (macOS: brew install qpdf poppler openssl nss)",
    ]);
    // With poppler, openssl and certutil present, only qpdf is named.
    for (const tool of ["pdftoppm", "pdfinfo", "pdftotext", "pdfsig", "openssl", "certutil"]) {
      const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
      symlinkSync(found, join(bin, tool));
    }
    const qpdfOnly = check(bin);
    expect([qpdfOnly.status, qpdfOnly.stderr.trim()]).toEqual([
      1,
      "npm test: missing qpdf; install with: sudo apt-get install -y qpdf (macOS: brew install qpdf)",
    ]);
  });
});
