import type { RunningStack } from "./local-stack.ts";
import { type SampleName, sampleLabel, sampleParams, type TestDesignSource } from "./sync-fixtures.ts";

type Workspace = RunningStack["localJson"]["workspaces"][number];

/** The seeded invoice (label contains 請求書) of a workspace. */
export const invoiceOf = (ws: Workspace) => ws.designs.find((d) => d.label.includes("請求書"))!;

export const INVOICE: SampleName = "invoice-ja";
export const INVOICE_LABEL = sampleLabel(INVOICE);

/** An ISO 8601 timestamp as `Date#toISOString` writes it. */
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A content item (OpenAPI generateSyncSingle) of the invoice with its sample params. */
export function invoiceItem(fileName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { fileName, params: sampleParams(INVOICE), ...extra };
}

/** An invoice item whose `請求先` (text) is a number: refused by sync, a per-file failure for async. */
export function mismatchedItem(fileName: string): Record<string, unknown> {
  return { fileName, params: { ...sampleParams(INVOICE), 請求先: 42 } };
}

/** `n` invoice items named `<prefix>-<i>`. */
export const invoiceItems = (n: number, prefix = "file") =>
  Array.from({ length: n }, (_, i) => invoiceItem(`${prefix}-${i}`));

/**
 * A design that never finishes: three nested Liquid loops run into the render budget
 * (RENDER_TIMEOUT: the file fails without a retry). One range of 100,000,000 would not
 * do: Liquid's memory limit refuses it at once (DOCUMENT_HTML_LIMIT_EXCEEDED).
 */
export const foreverDesign: TestDesignSource = {
  label: "TEST never finishes",
  parameters: [{ name: "n", type: "text", label: "N" }],
  template:
    "{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}{% endfor %}{% endfor %}{% endfor %}<p>{{ n }}</p>",
};

/** The keys of an object, sorted (to assert an exact field set). */
export const keysOf = (o: object) => Object.keys(o).sort();
