import type { RecordSpec } from "#shared/designs/bundle-schema.ts";
import { recordExpressionProblem } from "#shared/records/index.ts";
import type { BundleProblem } from "./bundle-rules.ts";

/**
 * design.json `record`: every expression parses as generation evaluates it (an unknown filter, a stray
 * `{{`), so a publisher learns it before a request fails with RECORD_FIELDS_INVALID.
 */
export function* recordProblems(
  record: RecordSpec,
  at: (field: string) => { line?: number; column?: number },
): Generator<BundleProblem> {
  for (const [field, expression] of Object.entries(record)) {
    if (field === "type" || expression === undefined) continue;
    const problem = recordExpressionProblem(expression);
    if (problem)
      yield {
        file: "design.json",
        field: `record.${field}`,
        ...at(field),
        text: {
          en: `record.${field} is not a Liquid expression: ${problem}`,
          ja: `record.${field} が Liquid の式として正しくありません: ${problem}`,
        },
      };
  }
}
