import type { BundleProblem } from "#shared/authoring/bundle-rules.ts";
import { catalogue, formatMessage } from "#shared/errors/catalogue.ts";
import { isPlatenError, untranslated, varsIn } from "#shared/errors/platen-error.ts";

/** LiquidJS ends a render-time error's message with its place. */
const LIQUID_PLACE = /, line:(\d+), col:(\d+)$/;

/**
 * Why a render of the folder failed, as the problems the studio lists: a bundle check
 * (BundleInvalid, DESIGN_BUNDLE_INVALID) names file, line and column; a render-time template
 * error its Liquid place; any other refusal its catalogue code and message.
 */
export function problemsOf(err: unknown): BundleProblem[] {
  if (err instanceof Error && "problems" in err && Array.isArray(err.problems)) return err.problems.map(placed);
  if (isPlatenError(err)) {
    if (err.details.length)
      return err.details.map((d) =>
        placed({
          file: d.file ?? "(render)",
          ...(d.field !== undefined && { field: d.field }),
          ...(d.line !== undefined && { line: d.line, column: d.column ?? 1 }),
          code: d.code ?? err.code,
          text: d.text,
        }),
      );
    const entry = catalogue[err.code];
    const text = {
      en: formatMessage(entry.en, varsIn(err.vars, "en")),
      ja: formatMessage(entry.ja, varsIn(err.vars, "ja")),
    };
    return [{ file: "(render)", code: err.code, text }];
  }
  // BundleError: the folder itself cannot be read (removed, renamed, unreadable).
  const message = err instanceof Error ? err.message : String(err);
  return [
    { file: err instanceof Error && err.name === "BundleError" ? "(folder)" : "(render)", text: untranslated(message) },
  ];
}

/** A problem without a line whose message names Liquid's place gets that place. */
function placed(problem: BundleProblem): BundleProblem {
  const place = problem.line === undefined ? LIQUID_PLACE.exec(problem.text.en) : null;
  if (!place) return problem;
  return {
    ...problem,
    line: Number(place[1]),
    column: Number(place[2]),
    text: { en: problem.text.en.slice(0, place.index), ja: problem.text.ja.replace(LIQUID_PLACE, "") },
  };
}

/** One problem on one line, as the console and the page show it: `file:line:column (field): CODE: message`. */
export function describeProblem(p: BundleProblem): string {
  const where = `${p.file}${p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : ""}`;
  return `${where}${p.field ? ` (${p.field})` : ""}: ${p.code ? `${p.code}: ` : ""}${p.text.en}`;
}
