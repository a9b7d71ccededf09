import { structuredPatch } from "diff";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";

/** The address of the diff between two versions (the editor's publish conflict links to it too). */
export const diffHref = (designId: string, from: number, to: number) =>
  `/designs/${designId}/versions?from=${from}&to=${to}#diff`;

/** One changed line of a file's diff, or the header of a hunk (`@@ -a,b +c,d @@`). */
export interface DiffLine {
  kind: "add" | "del" | "same" | "hunk";
  text: string;
}

/** The differences of one file between two versions; `lines` is empty when it did not change. */
export interface FileDiff {
  file: string;
  lines: DiffLine[];
}

/**
 * What the history compares of two versions: the template, the style and the parameters (as
 * the editor shows them, pretty-printed JSON). Label and description belong to the design, not
 * to a version, so they would only ever show as equal.
 */
const COMPARED: readonly [string, (b: DesignBundle) => string][] = [
  ["template.liquid", (b) => b.template],
  ["style.css", (b) => b.css],
  ["parameters", (b) => `${JSON.stringify(b.manifest.parameters, null, 2)}\n`],
];

/** A unified diff per compared file (3 lines of context), as lines the page marks up itself. */
export function versionDiff(from: DesignBundle, to: DesignBundle): FileDiff[] {
  return COMPARED.map(([file, text]) => {
    const patch = structuredPatch(file, file, withEndOfLine(text(from)), withEndOfLine(text(to)), "", "", {
      context: 3,
    });
    const lines: DiffLine[] = [];
    for (const hunk of patch.hunks) {
      lines.push({ kind: "hunk", text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
      for (const line of hunk.lines) {
        // "\ No newline at end of file" cannot occur: every text ends with one (withEndOfLine).
        const mark = line[0];
        lines.push({ kind: mark === "+" ? "add" : mark === "-" ? "del" : "same", text: line });
      }
    }
    return { file, lines };
  });
}

/** A last line without a newline would otherwise show as changed when only a line was added after it. */
const withEndOfLine = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
