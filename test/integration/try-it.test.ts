import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { compactPdfText } from "../helpers/pdf-inspect.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";

/**
 * The README's "Try it" block, run as a script exactly as written, against
 * a stack on a free port (so nothing in it may assume port 3000). It runs in a folder that
 * looks like the repository to it (`shared/` linked in), so the files it writes stay there.
 */

const repoRoot = resolve(import.meta.dirname, "../..");
let stack: SharedStack;
let cwd: string;

/** The first bash block under the `## Try it` heading. */
function tryItBlock(readme: string): string {
  const section = /^## Try it\b[^\n]*\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  const block = section && /^```bash\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```bash block under "## Try it"');
  return block;
}

beforeAll(async () => {
  stack = await sharedStack();
  cwd = mkdtempSync(join(tmpdir(), "platen-try-it-"));
  symlinkSync(join(repoRoot, "shared"), join(cwd, "shared"));
});

afterAll(async () => {
  await stack?.release();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

function runBash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const env = { ...process.env, PLATEN_DATA_DIR: stack.dataDir };
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", script],
      { cwd, env, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

it("runs the README's Try it block as pasted: every request answers, the sample invoice has its data", async () => {
  const script = tryItBlock(readFileSync(join(repoRoot, "README.md"), "utf8"));
  expect(script).not.toMatch(/localhost:3000|:3000\//);
  const out = await runBash(script);
  expect(out.code, out.stderr).toBe(0);
  expect(out.stderr).toBe("");

  expect(out.stdout).toContain('{"status":"ok"}');
  expect(out.stdout).toContain('"designs"');
  expect(out.stdout).toMatch(/^x-page-count: 1\r?$/im);
  expect(out.stdout).toContain("認証ヘッダー"); // the Japanese error
  expect(out.stdout).toContain("the body is not valid JSON (line 1, column 14)");
  expect(out.stdout).toMatch(/"requestId"/);

  const sample = await compactPdfText(readFileSync(join(cwd, "sample-invoice.pdf")));
  // What the thumbnail shows: the sample's customer, number and line items, not an empty ¥0 invoice.
  for (const text of ["株式会社サンプル商事", "INV-2025-0042", "Webサイト保守", "50,000"])
    expect(sample).toContain(text);
  const own = await compactPdfText(readFileSync(join(cwd, "invoice.pdf")));
  expect(own).toContain("INV-0042");
  expect(readFileSync(join(cwd, "invoices.zip")).subarray(0, 2).toString()).toBe("PK");
  expect(existsSync(join(cwd, "request.zip"))).toBe(true);
});
