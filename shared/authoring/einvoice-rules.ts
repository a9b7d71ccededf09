import { type ParseError, parse as parseJsonc } from "jsonc-parser";
import type { Liquid } from "liquidjs";
import { type DesignManifest, EINVOICE_MAPPING_FILE } from "#shared/designs/bundle-schema.ts";
import { einvoiceFormatOf } from "#shared/designs/pdf-standard.ts";
import { checkInvoice } from "#shared/einvoice/check.ts";
import { RenderError } from "#shared/render/render-error.ts";
import { createTemplateEngine, renderEinvoiceMapping, TEMPLATE_LIMITS } from "#shared/render/template.ts";
import type { RawBundle } from "./bundle-codec.ts";
import type { BundleProblem } from "./bundle-rules.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";

/**
 * The e-invoice checks of a bundle (shared/authoring/README.md#e-invoices): `einvoice` in design.json
 * and einvoice.liquid come together, the mapping parses as the renderer parses it, and rendered with
 * the sampleParams it makes an invoice that passes `checkInvoice`, so a publisher learns what is wrong
 * before any request fails. Yields problems one at a time, so checkBundle stops at its cap.
 */
export function* einvoiceProblems(
  raw: RawBundle,
  checked: { manifest?: DesignManifest; sampleFits: boolean },
  declaredAt: () => { line?: number; column?: number },
): Generator<BundleProblem> {
  const declared = isObject(raw.manifest) && raw.manifest.einvoice !== undefined;
  const mapping = raw.einvoiceMapping;
  if (declared && mapping === undefined) {
    yield {
      file: "design.json",
      field: "einvoice",
      ...declaredAt(),
      text: fillBoth(authoringText.mappingMissing, { file: EINVOICE_MAPPING_FILE }),
    };
    return;
  }
  if (mapping === undefined) return;
  if (!declared) {
    yield {
      file: EINVOICE_MAPPING_FILE,
      text: fillBoth(authoringText.mappingUndeclared, {
        file: EINVOICE_MAPPING_FILE,
        declaration: `{"format": …, "data": "${EINVOICE_MAPPING_FILE}"}`,
      }),
    };
    return;
  }
  if (mapping.length > MAX_MAPPING_CHARS) {
    yield {
      file: EINVOICE_MAPPING_FILE,
      text: fillBoth(authoringText.textTooLong, { max: MAX_MAPPING_CHARS }),
    };
    return;
  }
  const syntax = syntaxProblem(mapping);
  if (syntax) {
    yield syntax;
    return;
  }
  const format = checked.manifest && einvoiceFormatOf(checked.manifest);
  const sample = checked.manifest?.sampleParams;
  // Without sampleParams there is no invoice to check; sampleParams that do not fit the parameters are
  // refused on their own, as generation refuses such params before the mapping runs.
  if (!format || !sample || !checked.sampleFits) return;
  yield* sampleProblems(mapping, sample, format);
}

/** As template.liquid and style.css (BUNDLE_LIMITS.maxTextChars), and the renderer's parse limit. */
const MAX_MAPPING_CHARS = TEMPLATE_LIMITS.parseLimit;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The renderer's own engine for mappings (JSON out, no HTML escaping), made on first use. */
let mappingParser: Liquid | undefined;

/** A Liquid syntax error of the mapping, at its line and column (as template.liquid's are reported). */
function syntaxProblem(mapping: string): BundleProblem | undefined {
  mappingParser ??= createTemplateEngine("json");
  try {
    mappingParser.parse(mapping);
    return undefined;
  } catch (err) {
    const message = (err as Error).message.replace(/, line:\d+, col:\d+$/, "");
    return {
      file: EINVOICE_MAPPING_FILE,
      ...liquidPosition(err),
      text: fillBoth(authoringText.liquidSyntax, { reason: message }),
    };
  }
}

/** Line and column of a Liquid error's token, when it has one. */
function liquidPosition(err: unknown): { line?: number; column?: number } {
  const position = (err as { token?: { getPosition?: () => [number, number] } }).token?.getPosition?.();
  return position ? { line: position[0], column: position[1] } : {};
}

/** The mapping rendered with the sampleParams (as sent, like a request's params), parsed and checked. */
function* sampleProblems(
  mapping: string,
  sampleParams: Record<string, unknown>,
  format: NonNullable<ReturnType<typeof einvoiceFormatOf>>,
): Generator<BundleProblem> {
  let output: string;
  try {
    // The renderer's function and limits: what generation would do with these params.
    output = renderEinvoiceMapping(mapping, sampleParams, {});
  } catch (err) {
    if (!(err instanceof RenderError)) throw err;
    const message = err.message.replace(/^einvoice\.liquid: /, "").replace(/, line:\d+, col:\d+$/, "");
    yield {
      file: EINVOICE_MAPPING_FILE,
      ...liquidPosition(err.cause),
      code: err.code === "HTML_TOO_LARGE" ? "DOCUMENT_HTML_LIMIT_EXCEEDED" : err.code,
      text: fillBoth(authoringText.mappingRender, { reason: message }),
    };
    return;
  }
  let model: unknown;
  try {
    model = JSON.parse(output);
  } catch (err) {
    yield notJsonProblem(output, err);
    return;
  }
  const result = checkInvoice(model, format);
  if (result.ok) return;
  for (const v of result.violations) {
    yield {
      file: EINVOICE_MAPPING_FILE,
      field: v.path || "(invoice)",
      code: v.rule,
      text: fillBoth(authoringText.sampleBreaksRule, { rule: v.rule, reason: v.message }),
    };
  }
  if (result.omitted > 0)
    yield {
      file: EINVOICE_MAPPING_FILE,
      text: fillBoth(authoringText.moreViolations, { count: result.omitted }),
    };
}

/**
 * What the mapping rendered is not JSON: where in the rendered output the parse stopped (a line of the
 * output, which is not a line of the mapping) and the output's text there. TEMPLATE_FAILED, as generation
 * refuses such a mapping.
 */
function notJsonProblem(output: string, err: unknown): BundleProblem {
  const reason = bounded((err as Error).message.replace(/\s+/g, " "), 200);
  const offset = firstJsonErrorOffset(output);
  const where = offset === undefined ? undefined : outputPosition(output, offset);
  return {
    file: EINVOICE_MAPPING_FILE,
    code: "TEMPLATE_FAILED",
    text: fillBoth(authoringText.outputNotJson, {
      where: where ? fillBoth(authoringText.outputPlace, where) : "",
      reason,
    }),
  };
}

/**
 * Where strict JSON stops in a text JSON.parse refused: Node 20's messages give a position only for
 * some errors, so jsonc-parser (strict: no comments, no trailing commas) finds it.
 */
function firstJsonErrorOffset(text: string): number | undefined {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors[0]?.offset;
}

const bounded = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Line and column (from 1) of an offset of the rendered output, and the text around it. */
function outputPosition(output: string, offset: number): { line: number; column: number; near: string } {
  const before = output.slice(0, offset);
  return {
    line: before.split("\n").length,
    column: offset - before.lastIndexOf("\n"),
    near: JSON.stringify(output.slice(Math.max(0, offset - 20), offset + 20)),
  };
}
