import { extname } from "node:path";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { Liquid } from "liquidjs";
import type * as z from "zod";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { checkParams } from "#shared/generation/requests/index.ts";
import { registerPlatenFilters } from "#shared/render/filters.ts";
import { issueText } from "#shared/validation/zod-messages.ts";
import { type DesignBundle, designManifestSchema } from "#shared/designs/bundle-schema.ts";
import type { RawBundle } from "./bundle-codec.ts";
import { einvoiceProblems } from "./einvoice-rules.ts";
import { recordProblems } from "./record-rules.ts";

/**
 * What a design bundle may hold (shared/authoring/README.md#bundle-limits). A bundle is
 * loaded whole into every render, so it stays small; 10 MB is also API Gateway's body limit.
 */
export const BUNDLE_LIMITS = {
  /** Every asset, unzipped, together. */
  maxBundleBytes: 10 * 1024 * 1024,
  maxAssetBytes: 5 * 1024 * 1024,
  maxAssets: 100,
  /** Members of a zip (the assets and the four design files: design.json, template.liquid, style.css, einvoice.liquid). */
  maxFiles: 104,
  /** template.liquid, style.css and einvoice.liquid each. */
  maxTextChars: 1_000_000,
} as const;

/** Images, fonts and stylesheets: what a document can load. Scripts never run, so they are not assets. */
const ASSET_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".css": "text/css",
};

export const contentTypeOfAsset = (name: string): string | undefined => ASSET_TYPES[extname(name).toLowerCase()];

/** One problem of a bundle: the file, where in it, and what is wrong. */
export interface BundleProblem {
  file: string;
  field?: string;
  line?: number;
  column?: number;
  code?: string;
  /** What is wrong, in both languages (library texts inside it stay as the library words them). */
  text: Bilingual;
}

/**
 * A draft's warning as the design API answers it (`warnings[]` of GET and PUT
 * /designs/{id}/draft): `message` in English and `messageJa` beside it. The warnings are
 * answered whatever the request's language, so both stay on the wire under these names,
 * which clients read: this is the one place the pair is still spelt out.
 */
export const problemAnswer = (p: BundleProblem) => ({
  file: p.file,
  ...(p.field !== undefined && { field: p.field }),
  ...(p.line !== undefined && { line: p.line, column: p.column ?? 1 }),
  ...(p.code !== undefined && { code: p.code }),
  message: p.text.en,
  messageJa: p.text.ja,
});

/**
 * Problems one check lists at most (README.md#bundle-limits). Past them the checks stop, and one
 * more entry, on the file of the first problem left out, says that more were left out: the work of a
 * check stays bounded however many problems a bundle has.
 */
export const MAX_BUNDLE_PROBLEMS = 50;

/** 422 DESIGN_BUNDLE_INVALID with one detail per problem; its message is one line for the admin CLI. */
export class BundleInvalid extends PlatenError {
  readonly problems: BundleProblem[];

  constructor(problems: BundleProblem[]) {
    const listed = capProblems(problems);
    super("DESIGN_BUNDLE_INVALID", { details: listed.map(toDetail) });
    this.name = "BundleInvalid";
    this.problems = listed;
    this.message = `invalid design bundle: ${problems.slice(0, 3).map(describe).join("; ")}`;
  }
}

/** One problem on one line for the admin CLI: where, the catalogue code when there is one, what. */
const describe = (p: BundleProblem) =>
  `${p.file}${p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : ""}${p.field ? ` (${p.field})` : ""}: ${p.code ? `${p.code}: ` : ""}${p.text.en}`;

const toDetail = (p: BundleProblem) => ({
  file: p.file,
  ...(p.field !== undefined && { field: p.field }),
  ...(p.line !== undefined && { line: p.line, column: p.column ?? 1 }),
  ...(p.code !== undefined && { code: p.code }),
  text: p.text,
});

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

/**
 * The problems of one check, up to MAX_BUNDLE_PROBLEMS. `add` answers false once the list is full
 * (the problem is then only remembered as the first left out), so a producer stops there; a
 * problem given as a function is only made when it is kept.
 */
class ProblemList {
  private readonly items: BundleProblem[] = [];
  private leftOut: BundleProblem | undefined;

  /** A problem past the cap was found: nothing more is looked for. */
  get full(): boolean {
    return this.leftOut !== undefined;
  }

  add(problem: BundleProblem | (() => BundleProblem) | undefined): boolean {
    if (problem === undefined) return !this.full;
    if (this.full) return false;
    const made = typeof problem === "function" ? problem() : problem;
    if (this.items.length < MAX_BUNDLE_PROBLEMS) {
      this.items.push(made);
      return true;
    }
    this.leftOut = made;
    return false;
  }

  /** The problems kept, then the note that more were left out. */
  list(): BundleProblem[] {
    return this.leftOut ? [...this.items, leftOutNote(this.leftOut)] : [...this.items];
  }
}

/** Notes made by leftOutNote: a list ending in one is already capped. */
const notes = new WeakSet<BundleProblem>();

/** The entry after MAX_BUNDLE_PROBLEMS problems: more were left out, the first of them on this file. */
function leftOutNote(first: BundleProblem): BundleProblem {
  const note = {
    file: first.file,
    text: fillBoth(authoringText.moreLeftOut, { max: MAX_BUNDLE_PROBLEMS }),
  };
  notes.add(note);
  return note;
}

/** Any list of problems as an answer lists them: the first MAX_BUNDLE_PROBLEMS, then the note. */
function capProblems(problems: BundleProblem[]): BundleProblem[] {
  if (problems.length <= MAX_BUNDLE_PROBLEMS) return problems;
  if (problems.length === MAX_BUNDLE_PROBLEMS + 1 && notes.has(problems[MAX_BUNDLE_PROBLEMS]!)) return problems;
  return [...problems.slice(0, MAX_BUNDLE_PROBLEMS), leftOutNote(problems[MAX_BUNDLE_PROBLEMS]!)];
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
