import { spawnSync } from "node:child_process";

/**
 * `npm test` runs this first: the tools the suite reads PDFs back with that npm does not bring
 * (qpdf for the password-protected PDFs, poppler's pdftoppm / pdfinfo / pdftotext for barcodes,
 * metadata and text). Missing ones stop the run at once with one line naming them and the command
 * that installs them, instead of `spawn qpdf ENOENT` in several files minutes later.
 */
const TOOLS = [
  { command: "qpdf", args: ["--version"], pkg: "qpdf" },
  { command: "pdftoppm", args: ["-v"], pkg: "poppler-utils" },
  { command: "pdfinfo", args: ["-v"], pkg: "poppler-utils" },
  { command: "pdftotext", args: ["-v"], pkg: "poppler-utils" },
  { command: "pdfsig", args: ["-v"], pkg: "poppler-utils" },
  { command: "openssl", args: ["version"], pkg: "openssl" },
  { command: "certutil", args: ["-H"], pkg: "libnss3-tools" },
] as const;

const missing = TOOLS.filter((t) => spawnSync(t.command, t.args, { stdio: "ignore" }).error !== undefined);
if (missing.length) {
  const packages = [...new Set(missing.map((t) => t.pkg))].join(" ");
  console.error(
    `npm test: missing ${missing.map((t) => t.command).join(", ")}; install with: sudo apt-get install -y ${packages} (macOS: brew install ${packages.replace("poppler-utils", "poppler")})`,
  );
  process.exit(1);
}
