import { spawnSync } from "node:child_process";

/**
 * `npm test` runs this first: the tools the suite reads PDFs back with that npm does not bring
 * (qpdf for the password-protected PDFs, poppler's pdftoppm / pdfinfo / pdftotext for barcodes,
 * metadata and text; pdfsig, openssl and NSS's certutil for the signatures). Missing ones stop the run at once with one line naming them and the command
 * that installs them, instead of `spawn qpdf ENOENT` in several files minutes later.
 */
const TOOLS = [
  { command: "qpdf", args: ["--version"], pkg: "qpdf", brew: "qpdf" },
  { command: "pdftoppm", args: ["-v"], pkg: "poppler-utils", brew: "poppler" },
  { command: "pdfinfo", args: ["-v"], pkg: "poppler-utils", brew: "poppler" },
  { command: "pdftotext", args: ["-v"], pkg: "poppler-utils", brew: "poppler" },
  { command: "pdfsig", args: ["-v"], pkg: "poppler-utils", brew: "poppler" },
  { command: "openssl", args: ["version"], pkg: "openssl", brew: "openssl" },
  { command: "certutil", args: ["-H"], pkg: "libnss3-tools", brew: "nss" },
] as const;

const missing = TOOLS.filter((t) => spawnSync(t.command, t.args, { stdio: "ignore" }).error !== undefined);
if (missing.length) {
  const packages = (key: "pkg" | "brew") => [...new Set(missing.map((t) => t[key]))].join(" ");
  console.error(
    `npm test: missing ${missing.map((t) => t.command).join(", ")}; install with: sudo apt-get install -y ${packages("pkg")} (macOS: brew install ${packages("brew")})`,
  );
  process.exit(1);
}
