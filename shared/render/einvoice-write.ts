import { type ParseError, parse as scanJson } from "jsonc-parser";
import { type EinvoiceViolation, checkInvoice } from "#shared/einvoice/check.ts";
import type { EinvoiceFormat } from "#shared/einvoice/model.ts";
import { unsupportedFor, writeEinvoiceXml } from "#shared/einvoice/write-einvoice.ts";
import type { DocumentEinvoice } from "./einvoice-document.ts";
import { facturXRelationship, type PdfArchiveOptions } from "./pdf-a-options.ts";
import { RenderError } from "./render-error.ts";

/**
 * The e-invoice half of a document's template step (einvoice-document.ts), loaded only by designs with
 * `einvoice`: the rules, the computation and the XML writers are no part of any other cold start.
 */

/** The name Factur-X gives the embedded XML (and the attachment's `fx:DocumentFileName`). */
export const FACTUR_X_FILE_NAME = "factur-x.xml";

/**
 * Checks what a design's `einvoice.liquid` rendered for one document and writes its XML
 * (shared/einvoice/README.md). Runs before a browser is taken: a refusal costs no print and
 * bills nothing.
 * @throws RenderError TEMPLATE_FAILED when the mapping's output is not JSON (naming its line),
 * EINVOICE_INVALID with the violations when the invoice breaks a rule.
 */
export function einvoiceOf(mappingOutput: string, format: EinvoiceFormat): DocumentEinvoice {
  let model: unknown;
  try {
    model = JSON.parse(mappingOutput);
  } catch (cause) {
    throw new RenderError("TEMPLATE_FAILED", `einvoice.liquid: ${jsonProblem(mappingOutput, cause)}`, { cause });
  }
  const checked = checkInvoice(model, format);
  if (!checked.ok) {
    throw new RenderError("EINVOICE_INVALID", summary(checked.violations), { violations: checked.violations });
  }
  const unsupported = unsupportedFor(format, checked.invoice);
  if (unsupported) {
    throw new RenderError("EINVOICE_INVALID", unsupported, {
      violations: [{ path: "", rule: format, message: { en: unsupported, ja: unsupported } }],
    });
  }
  const xml = Buffer.from(writeEinvoiceXml(checked.invoice, format), "utf8");
  return { format, invoice: checked.invoice, xml, archive: einvoiceArchive(format, xml) };
}

/** What post-processing writes for an e-invoice: Factur-X embeds its XML in a PDF/A-3b; the XML-only formats nothing. */
export function einvoiceArchive(format: EinvoiceFormat, xml: Buffer): PdfArchiveOptions {
  if (format !== "factur-x") return {};
  return {
    standard: "PDF/A-3b",
    attachments: [
      {
        name: FACTUR_X_FILE_NAME,
        bytes: xml,
        mimeType: "text/xml",
        relationship: facturXRelationship("EN 16931"),
        description: "Factur-X/ZUGFeRD invoice (EN 16931)",
      },
    ],
    facturX: { documentType: "INVOICE", fileName: FACTUR_X_FILE_NAME, version: "1.0", conformanceLevel: "EN 16931" },
  };
}

/**
 * `at line 3, column 11 of its output (Unexpected token ',')`: where the mapping's output stopped being
 * JSON. V8 gives no position for an unexpected token (the usual slip: `"amount": ,` from an empty value),
 * so jsonc-parser's strict scan finds it; V8's quote of the output is left out, as it carries params.
 */
function jsonProblem(text: string, cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  const reason =
    message
      .replace(/(?:^|, )(?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, "")
      .replace(/ in JSON at position \d+.*$/s, "") || "unexpected text";
  const errors: ParseError[] = [];
  scanJson(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const v8 = / at position (\d+)/.exec(message);
  const offset = errors[0]?.offset ?? (v8 ? Number(v8[1]) : undefined);
  if (offset === undefined) return `the mapping did not render JSON (${reason})`;
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `the mapping did not render JSON at line ${line}, column ${column} of its output (${reason})`;
}

/** The first violations in one line, for logs and the async failure message; details carry all of them. */
function summary(violations: readonly EinvoiceViolation[]): string {
  const shown = violations.slice(0, 3).map((v) => `${v.rule} ${v.path || "invoice"}: ${v.message.en}`);
  return `${shown.join("; ")}${violations.length > 3 ? `; and ${violations.length - 3} more` : ""}`;
}
