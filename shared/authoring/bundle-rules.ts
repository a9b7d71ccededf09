import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { Liquid } from "liquidjs";
import type * as z from "zod";
import { fillBoth } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";
import { checkParams } from "#shared/generation/requests/index.ts";
import { registerPlatenFilters } from "#shared/render/filters.ts";
import { issueText } from "#shared/validation/zod-messages.ts";
import { type DesignBundle, designManifestSchema } from "#shared/designs/bundle-schema.ts";
import type { RawBundle } from "./bundle-codec.ts";
import { BUNDLE_LIMITS, BundleInvalid, type BundleProblem, ProblemList } from "./bundle-problems.ts";
import { einvoiceProblems } from "./einvoice-rules.ts";
import { recordProblems } from "./record-rules.ts";

export {
  BUNDLE_LIMITS,
  BundleInvalid,
  type BundleProblem,
  contentTypeOfAsset,
  MAX_BUNDLE_PROBLEMS,
  problemAnswer,
} from "./bundle-problems.ts";

/**
 * A parser with the renderer's filters, so an unknown filter is a syntax error here as it is at render. Made on
 * the first check, not when the module loads: the site's pages that only show a design load this module too.
 */
let parser: Liquid | undefined;
const templateParser = (): Liquid =>
  (parser ??= registerPlatenFilters(new Liquid({ strictFilters: true, parseLimit: BUNDLE_LIMITS.maxTextChars })));

/**
 * Every check a bundle passes before it is published (and the warnings of a draft): the
 * manifest's schema, Liquid syntax, sampleParams against the parameters, assets the
 * template or style names, the limits, and the e-invoice mapping (einvoice-rules.ts). Answers the checked bundle and its problems: at most
 * MAX_BUNDLE_PROBLEMS, then a note that more were left out. Linear in the bundle's size: each text's
 * lines are indexed once and design.json is parsed once, whatever the number of problems.
 */
export function checkBundle(raw: RawBundle): { bundle?: DesignBundle; problems: BundleProblem[] } {
  const problems = new ProblemList();
  const manifestAt = jsonPositions(raw.manifestText);
  // reportInput: the locales name the received type, and a missing key reads "is required".
  const parsed = designManifestSchema.safeParse(raw.manifest, { reportInput: true });
  if (!parsed.success)
    for (const issue of parsed.error.issues) if (!problems.add(() => manifestProblem(issue, manifestAt))) break;
  if (!problems.full) problems.add(templateProblem(raw.template, "template.liquid"));
  if (raw.css.length > BUNDLE_LIMITS.maxTextChars)
    problems.add({
      file: "style.css",
      text: fillBoth(authoringText.textTooLong, { max: BUNDLE_LIMITS.maxTextChars }),
    });
  assetProblems(raw, problems);
  let sampleFits = true;
  if (parsed.success && parsed.data.sampleParams && !problems.full) {
    const { mismatches } = checkParams(parsed.data.parameters, parsed.data.sampleParams, "sampleParams");
    sampleFits = mismatches.length === 0;
    for (const m of mismatches) {
      const added = problems.add(() => ({
        file: "design.json",
        field: m.field,
        ...manifestAt(m.field?.split(".") ?? []),
        text: fillBoth(authoringText.sampleMismatch, { reason: m.text }),
      }));
      if (!added) break;
    }
  }
  const manifest = parsed.success ? parsed.data : undefined;
  if (!problems.full)
    for (const problem of einvoiceProblems(raw, { manifest, sampleFits }, () => manifestAt(["einvoice"])))
      if (!problems.add(problem)) break;
  // design.json `record`: each expression parses as the generation will evaluate it (shared/records/README.md).
  if (manifest?.record && !problems.full)
    for (const problem of recordProblems(manifest.record, (field) => manifestAt(["record", field])))
      if (!problems.add(problem)) break;
  if (!manifest) return { problems: problems.list() };
  const { template, css, einvoiceMapping, assets } = raw;
  return {
    bundle: { manifest, template, css, ...(einvoiceMapping !== undefined && { einvoiceMapping }), assets },
    problems: problems.list(),
  };
}

/** The bundle, or 422 DESIGN_BUNDLE_INVALID naming every problem. */
export function strictBundle(raw: RawBundle): DesignBundle {
  const { bundle, problems } = checkBundle(raw);
  if (problems.length || !bundle) throw new BundleInvalid(problems);
  return bundle;
}

function manifestProblem(issue: z.core.$ZodIssue, at: JsonPositions): BundleProblem {
  const path = issue.path.map(String);
  return {
    file: "design.json",
    field: path.length ? path.join(".") : "(root)",
    ...at(path),
    text: issueText(issue),
  };
}

/** Line and column of a JSON path in design.json's text (the nearest existing parent). */
type JsonPositions = (path: string[]) => { line?: number; column?: number };

/** Positions in one JSON text: parsed once, on the first question, and its lines indexed once. */
function jsonPositions(text: string | undefined): JsonPositions {
  if (text === undefined) return () => ({});
  let tree: ReturnType<typeof parseTree> | null = null;
  const lineOf = lineIndex(text);
  return (path) => {
    if (tree === null) tree = parseTree(text);
    if (!tree) return {};
    for (let n = path.length; n >= 0; n--) {
      const segments = path.slice(0, n).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      const node = findNodeAtLocation(tree, segments);
      // A property's value node: point at its key, where an editor shows the property.
      if (node) return lineOf(node.parent?.type === "property" ? node.parent.offset : node.offset);
    }
    return {};
  };
}

/**
 * Line and column (both from 1) of offsets in one text: the line starts are found once, on the
 * first lookup, and each lookup is a binary search among them.
 */
export function lineIndex(text: string): (offset: number) => { line: number; column: number } {
  let starts: number[] | undefined;
  return (offset) => {
    if (!starts) {
      starts = [0];
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - starts[low]! + 1 };
  };
}

function templateProblem(template: string, file: string): BundleProblem | undefined {
  if (template.length > BUNDLE_LIMITS.maxTextChars)
    return {
      file,
      text: fillBoth(authoringText.textTooLong, { max: BUNDLE_LIMITS.maxTextChars }),
    };
  try {
    templateParser().parse(template);
    return undefined;
  } catch (err) {
    const position = (err as { token?: { getPosition?: () => [number, number] } }).token?.getPosition?.();
    const message = (err as Error).message.replace(/, line:\d+, col:\d+$/, "");
    return {
      file,
      ...(position && { line: position[0], column: position[1] }),
      text: fillBoth(authoringText.liquidSyntax, { reason: message }),
    };
  }
}

/** `assets/…` names in the template and style: relative URLs resolve on the design origin. */
const ASSET_REFERENCE = /assets\/[^"'()\s<>{}]+/g;

function decodedName(reference: string): string {
  try {
    return decodeURI(reference);
  } catch {
    return reference;
  }
}

function assetProblems(raw: RawBundle, problems: ProblemList): void {
  const names = Object.keys(raw.assets);
  if (names.length > BUNDLE_LIMITS.maxAssets)
    problems.add({
      file: "assets/",
      text: fillBoth(authoringText.tooManyAssets, { max: BUNDLE_LIMITS.maxAssets, count: names.length }),
    });
  let total = 0;
  for (const name of names) {
    const size = raw.assets[name]!.body.length;
    total += size;
    if (size > BUNDLE_LIMITS.maxAssetBytes)
      problems.add({
        file: name,
        text: fillBoth(authoringText.assetTooLarge, { mb: BUNDLE_LIMITS.maxAssetBytes / 1024 / 1024 }),
      });
  }
  if (total > BUNDLE_LIMITS.maxBundleBytes)
    problems.add({
      file: "assets/",
      text: fillBoth(authoringText.assetsTooLarge, { mb: BUNDLE_LIMITS.maxBundleBytes / 1024 / 1024 }),
    });
  for (const [file, text] of [
    ["template.liquid", raw.template],
    ["style.css", raw.css],
  ] as const) {
    // A text over its limit is refused as such; its references are not looked for.
    if (text.length > BUNDLE_LIMITS.maxTextChars) continue;
    // One index of the text's lines for all its references (it was split up to each one: quadratic).
    const lineOf = lineIndex(text);
    for (const match of text.matchAll(ASSET_REFERENCE)) {
      if (problems.full) return;
      const name = decodedName(match[0].replace(/[?#].*$/, ""));
      if (Object.hasOwn(raw.assets, name)) continue;
      problems.add(() => ({
        file,
        ...lineOf(match.index),
        text: fillBoth(authoringText.missingAsset, { name }),
      }));
    }
  }
}
