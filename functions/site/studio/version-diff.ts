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

/**
 * The differences of one file between two versions; `lines` is empty when it did not change, or
 * when it is `tooLarge` to compare here (the page then offers both versions to download).
 */
export interface FileDiff {
  file: string;
  lines: DiffLine[];
  tooLarge?: true;
}

/**
 * The bounds of a comparison (functions/site/README.md#version-history): Myers' diff costs about
 * (lines × changes), so two 20,000-line versions took over a minute of the site function. A file
 * with more than MAX_COMPARED_LINES lines or MAX_COMPARED_CHARS characters in either version is not
 * compared at all; below that the diff gives up past MAX_CHANGED_LINES lines added plus removed,
 * or after DIFF_TIMEOUT_MS of work, whichever comes first.
 */
export const MAX_COMPARED_LINES = 10_000;
export const MAX_COMPARED_CHARS = 1_000_000;
export const MAX_CHANGED_LINES = 1_000;
export const DIFF_TIMEOUT_MS = 1_000;

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

/**
 * A unified diff per compared file (3 lines of context), as lines the page marks up itself; a
 * file past the bounds above is `tooLarge` instead.
 */
export function versionDiff(from: DesignBundle, to: DesignBundle): FileDiff[] {
  return COMPARED.map(([file, text]) => {
    const [before, after] = [withEndOfLine(text(from)), withEndOfLine(text(to))];
    if (before === after) return { file, lines: [] };
    if (tooLargeToCompare(before) || tooLargeToCompare(after)) return { file, lines: [], tooLarge: true };
    // jsdiff answers undefined when it gives up (maxEditLength or timeout reached).
    const patch = structuredPatch(file, file, before, after, "", "", {
      context: 3,
      maxEditLength: MAX_CHANGED_LINES,
      timeout: DIFF_TIMEOUT_MS,
    });
    if (!patch) return { file, lines: [], tooLarge: true };
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

/** Counted without splitting: a 500,000-line text is refused in one pass over it. */
function tooLargeToCompare(text: string): boolean {
  if (text.length > MAX_COMPARED_CHARS) return true;
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1))
    if (++lines > MAX_COMPARED_LINES) return true;
  return false;
}

/** A last line without a newline would otherwise show as changed when only a line was added after it. */
const withEndOfLine = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
