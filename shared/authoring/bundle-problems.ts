import { extname } from "node:path";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";

/*
 * What a bundle's checks report, apart from the checks themselves (bundle-rules.ts, which load LiquidJS and the
 * e-invoice rules): the limits, a problem, the refusal naming them. What reads or shows a bundle imports this.
 */

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
 * The problems of one check, up to MAX_BUNDLE_PROBLEMS. `add` answers false once the list is full
 * (the problem is then only remembered as the first left out), so a producer stops there; a
 * problem given as a function is only made when it is kept.
 */
export class ProblemList {
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
