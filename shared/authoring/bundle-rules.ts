import { extname } from "node:path";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { Liquid } from "liquidjs";
import type * as z from "zod";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { checkParams } from "#shared/generation/params-check.ts";
import { registerPlatenFilters } from "#shared/render/filters.ts";
import { issueMessages } from "#shared/validation/zod-messages.ts";
import { type DesignBundle, designManifestSchema } from "#shared/designs/bundle-schema.ts";
import type { RawBundle } from "./bundle-codec.ts";

/**
 * What a design bundle may hold (shared/authoring/README.md#bundle-limits). A bundle is
 * loaded whole into every render, so it stays small; 10 MB is also API Gateway's body limit.
 */
export const BUNDLE_LIMITS = {
  /** Every asset, unzipped, together. */
  maxBundleBytes: 10 * 1024 * 1024,
  maxAssetBytes: 5 * 1024 * 1024,
  maxAssets: 100,
  /** Members of a zip (the assets and the three design files). */
  maxFiles: 103,
  /** template.liquid and style.css each. */
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
  message: string;
  /** The Japanese message shown under Accept-Language: ja (library texts inside it stay as the library words them). */
  messageJa?: string;
}

/** 422 DESIGN_BUNDLE_INVALID with one detail per problem; its message is one line for the admin CLI. */
export class BundleInvalid extends PlatenError {
  readonly problems: BundleProblem[];

  constructor(problems: BundleProblem[]) {
    super("DESIGN_BUNDLE_INVALID", { details: problems.slice(0, 50).map(toDetail) });
    this.name = "BundleInvalid";
    this.problems = problems;
    this.message = `invalid design bundle: ${problems.slice(0, 3).map(describe).join("; ")}`;
  }
}

/** One problem on one line for the admin CLI: where, the catalogue code when there is one, what. */
const describe = (p: BundleProblem) =>
  `${p.file}${p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : ""}${p.field ? ` (${p.field})` : ""}: ${p.code ? `${p.code}: ` : ""}${p.message}`;

const toDetail = (p: BundleProblem) => ({
  file: p.file,
  ...(p.field !== undefined && { field: p.field }),
  ...(p.line !== undefined && { line: p.line, column: p.column ?? 1 }),
  ...(p.code !== undefined && { code: p.code }),
  message: p.message,
  ...(p.messageJa !== undefined && { messageJa: p.messageJa }),
});

/** A parser with the renderer's filters, so an unknown filter is a syntax error here as it is at render. */
const parser = registerPlatenFilters(new Liquid({ strictFilters: true, parseLimit: BUNDLE_LIMITS.maxTextChars }));

/**
 * Every check a bundle passes before it is published (and the warnings of a draft): the
 * manifest's schema, Liquid syntax, sampleParams against the parameters, assets the
 * template or style names, and the limits. Answers the checked bundle and its problems.
 */
export function checkBundle(raw: RawBundle): { bundle?: DesignBundle; problems: BundleProblem[] } {
  const problems: BundleProblem[] = [];
  // reportInput: the locales name the received type, and a missing key reads "is required".
  const parsed = designManifestSchema.safeParse(raw.manifest, { reportInput: true });
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => manifestProblem(i, raw.manifestText)));
  problems.push(...templateProblems(raw.template, "template.liquid"));
  if (raw.css.length > BUNDLE_LIMITS.maxTextChars)
    problems.push({
      file: "style.css",
      message: `longer than ${BUNDLE_LIMITS.maxTextChars} characters`,
      messageJa: `${BUNDLE_LIMITS.maxTextChars} 文字を超えています`,
    });
  problems.push(...assetProblems(raw));
  if (parsed.success && parsed.data.sampleParams) {
    const { mismatches } = checkParams(parsed.data.parameters, parsed.data.sampleParams, "sampleParams");
    for (const m of mismatches) {
      problems.push({
        file: "design.json",
        field: m.field,
        ...positionOf(raw.manifestText, m.field?.split(".") ?? []),
        message: `does not fit the parameter schema: ${m.message}`,
        messageJa: `パラメーターのスキーマに合いません: ${m.messageJa ?? m.message}`,
      });
    }
  }
  if (!parsed.success) return { problems };
  return { bundle: { manifest: parsed.data, template: raw.template, css: raw.css, assets: raw.assets }, problems };
}

/** The bundle, or 422 DESIGN_BUNDLE_INVALID naming every problem. */
export function strictBundle(raw: RawBundle): DesignBundle {
  const { bundle, problems } = checkBundle(raw);
  if (problems.length || !bundle) throw new BundleInvalid(problems);
  return bundle;
}

function manifestProblem(issue: z.core.$ZodIssue, text: string | undefined): BundleProblem {
  const path = issue.path.map(String);
  return {
    file: "design.json",
    field: path.length ? path.join(".") : "(root)",
    ...positionOf(text, path),
    ...issueMessages(issue),
  };
}

/** Line and column of a JSON path in design.json's text (the nearest existing parent). */
function positionOf(text: string | undefined, path: string[]): { line?: number; column?: number } {
  if (text === undefined) return {};
  const tree = parseTree(text);
  if (!tree) return {};
  for (let n = path.length; n >= 0; n--) {
    const segments = path.slice(0, n).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    const node = findNodeAtLocation(tree, segments);
    if (node) {
      // A property's value node: point at its key, where an editor shows the property.
      const at = node.parent?.type === "property" ? node.parent.offset : node.offset;
      const before = text.slice(0, at);
      return { line: before.split("\n").length, column: at - before.lastIndexOf("\n") };
    }
  }
  return {};
}

function templateProblems(template: string, file: string): BundleProblem[] {
  if (template.length > BUNDLE_LIMITS.maxTextChars)
    return [
      {
        file,
        message: `longer than ${BUNDLE_LIMITS.maxTextChars} characters`,
        messageJa: `${BUNDLE_LIMITS.maxTextChars} 文字を超えています`,
      },
    ];
  try {
    parser.parse(template);
    return [];
  } catch (err) {
    const position = (err as { token?: { getPosition?: () => [number, number] } }).token?.getPosition?.();
    const message = (err as Error).message.replace(/, line:\d+, col:\d+$/, "");
    return [
      {
        file,
        ...(position && { line: position[0], column: position[1] }),
        message,
        messageJa: `Liquid の構文エラーです: ${message}`,
      },
    ];
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

function assetProblems(raw: RawBundle): BundleProblem[] {
  const problems: BundleProblem[] = [];
  const names = Object.keys(raw.assets);
  if (names.length > BUNDLE_LIMITS.maxAssets)
    problems.push({
      file: "assets/",
      message: `more than ${BUNDLE_LIMITS.maxAssets} assets (${names.length})`,
      messageJa: `アセットが ${BUNDLE_LIMITS.maxAssets} 個を超えています（${names.length} 個）`,
    });
  let total = 0;
  for (const name of names) {
    const size = raw.assets[name]!.body.length;
    total += size;
    if (size > BUNDLE_LIMITS.maxAssetBytes)
      problems.push({
        file: name,
        message: `larger than ${BUNDLE_LIMITS.maxAssetBytes / 1024 / 1024} MB`,
        messageJa: `${BUNDLE_LIMITS.maxAssetBytes / 1024 / 1024} MB を超えています`,
      });
  }
  if (total > BUNDLE_LIMITS.maxBundleBytes)
    problems.push({
      file: "assets/",
      message: `assets over ${BUNDLE_LIMITS.maxBundleBytes / 1024 / 1024} MB in all`,
      messageJa: `アセットの合計が ${BUNDLE_LIMITS.maxBundleBytes / 1024 / 1024} MB を超えています`,
    });
  for (const [file, text] of [
    ["template.liquid", raw.template],
    ["style.css", raw.css],
  ] as const) {
    for (const match of text.matchAll(ASSET_REFERENCE)) {
      const name = decodedName(match[0].replace(/[?#].*$/, ""));
      if (raw.assets[name]) continue;
      const before = text.slice(0, match.index);
      problems.push({
        file,
        line: before.split("\n").length,
        column: match.index - before.lastIndexOf("\n"),
        message: `names ${name}, which the bundle does not have`,
        messageJa: `バンドルにない ${name} を参照しています`,
      });
    }
  }
  return problems;
}
