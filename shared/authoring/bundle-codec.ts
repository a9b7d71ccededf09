import { posix } from "node:path";
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { ZipFile } from "yazl";
import { type DesignBundle, type DesignManifest, EINVOICE_MAPPING_FILE } from "#shared/designs/bundle-schema.ts";
import { MAX_PARAMS_DEPTH, tooDeepPath } from "#shared/generation/requests/index.ts";
import { type BundleProblem, BUNDLE_LIMITS, contentTypeOfAsset, BundleInvalid } from "./bundle-problems.ts";
import { type Bilingual, fillBoth } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";

/**
 * A design as the JSON form of the design API (what the studio autosaves as a draft): the
 * fields of design.json beside the template, the style and the assets (path → base64).
 */
export interface DesignJsonForm {
  label: string;
  description?: string;
  template: string;
  style?: string;
  parameters: unknown;
  page?: unknown;
  lang?: string;
  pdf?: unknown;
  einvoice?: unknown;
  metadata?: unknown;
  signature?: unknown;
  sampleParams?: unknown;
  /** einvoice.liquid, the e-invoice mapping (a design whose design.json has `einvoice`). */
  einvoiceMapping?: string;
  assets?: Record<string, string>;
}

/** The files of a bundle before design.json is checked: what the zip or the JSON form held. */
export interface RawBundle {
  /** design.json's value (already JSON-parsed), with its text when it came from a file. */
  manifest: unknown;
  manifestText?: string;
  template: string;
  css: string;
  /** einvoice.liquid, when the bundle has one. */
  einvoiceMapping?: string;
  assets: DesignBundle["assets"];
}

const MANIFEST_FIELDS = [
  "label",
  "description",
  "page",
  "lang",
  "pdf",
  "einvoice",
  "metadata",
  "signature",
  "parameters",
  "sampleParams",
] as const;

/** The files of a bundle beside assets/…, each by the name it has in a zip or folder. */
const BUNDLE_FILES = ["design.json", "template.liquid", "style.css", EINVOICE_MAPPING_FILE];

/** The JSON form's files; only the form's own shape is checked here (validateBundle checks the rest). */
export function rawFromJsonForm(form: Record<string, unknown>): RawBundle {
  const problems: BundleProblem[] = [];
  const manifest: Record<string, unknown> = {};
  for (const name of MANIFEST_FIELDS) if (form[name] !== undefined) manifest[name] = form[name];
  const known = new Set<string>([...MANIFEST_FIELDS, "template", "style", "einvoiceMapping", "assets"]);
  for (const key of Object.keys(form)) {
    if (!known.has(key))
      problems.push({
        file: "design.json",
        field: key,
        text: fillBoth(authoringText.unknownField, { key }),
      });
  }
  if (typeof form.template !== "string")
    problems.push({
      file: "template.liquid",
      field: "template",
      text: authoringText.templateNotString,
    });
  if (form.style !== undefined && typeof form.style !== "string")
    problems.push({
      file: "style.css",
      field: "style",
      text: authoringText.styleNotString,
    });
  if (form.einvoiceMapping !== undefined && typeof form.einvoiceMapping !== "string")
    problems.push({
      file: EINVOICE_MAPPING_FILE,
      field: "einvoiceMapping",
      text: authoringText.mappingNotString,
    });
  const assets: DesignBundle["assets"] = {};
  if (form.assets !== undefined) {
    if (typeof form.assets !== "object" || form.assets === null || Array.isArray(form.assets)) {
      problems.push({
        file: "assets/",
        field: "assets",
        text: authoringText.assetsNotObject,
      });
    } else {
      for (const [rawName, value] of Object.entries(form.assets)) {
        const name = assetPath(rawName);
        if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value.replace(/\s/g, ""))) {
          problems.push({
            file: name,
            field: `assets.${rawName}`,
            text: authoringText.assetNotBase64,
          });
          continue;
        }
        addAsset(assets, name, Buffer.from(value, "base64"), problems);
      }
    }
  }
  problems.push(...nestingProblems(manifest));
  if (problems.length) throw new BundleInvalid(problems);
  return {
    manifest,
    template: form.template as string,
    css: (form.style as string | undefined) ?? "",
    ...(form.einvoiceMapping !== undefined && { einvoiceMapping: form.einvoiceMapping as string }),
    assets,
  };
}

/** A bundle as the JSON form (drafts, `GET …/draft`). */
export function toJsonForm(
  bundle: { manifest: Record<string, unknown> | DesignManifest } & Omit<RawBundle, "manifest">,
) {
  const m = bundle.manifest as Record<string, unknown>;
  return {
    ...Object.fromEntries(MANIFEST_FIELDS.filter((f) => m[f] !== undefined).map((f) => [f, m[f]])),
    template: bundle.template,
    style: bundle.css,
    ...(bundle.einvoiceMapping !== undefined && { einvoiceMapping: bundle.einvoiceMapping }),
    assets: Object.fromEntries(Object.entries(bundle.assets).map(([n, a]) => [n, a.body.toString("base64")])),
  } as DesignJsonForm;
}

/**
 * The files of a bundle zip (the folder the admin CLI publishes: design.json,
 * template.liquid, style.css, einvoice.liquid, assets/…). A zip of the folder itself (one top folder holding
 * design.json) is accepted too. Sizes are checked while inflating, so a zip bomb stops at the
 * bundle limit instead of filling memory.
 */
export async function rawFromZip(zip: Buffer): Promise<RawBundle> {
  return rawFromFiles(await readZipFiles(zip));
}

/** The files of a bundle folder or zip (path → bytes, `/`-separated) as a bundle to check. */
export function rawFromFiles(files: Map<string, Buffer>): RawBundle {
  const prefix = commonFolder([...files.keys()]);
  const problems: BundleProblem[] = [];
  const text = (name: string) => files.get(prefix + name)?.toString("utf8");
  const manifestText = text("design.json");
  const template = text("template.liquid");
  if (manifestText === undefined)
    problems.push({
      file: "design.json",
      text: authoringText.noManifest,
    });
  if (template === undefined)
    problems.push({
      file: "template.liquid",
      text: authoringText.noTemplate,
    });
  const assets: DesignBundle["assets"] = {};
  for (const [fullName, body] of files) {
    const name = fullName.slice(prefix.length);
    if (BUNDLE_FILES.includes(name)) continue;
    if (!name.startsWith("assets/")) {
      problems.push({
        file: name,
        text: authoringText.strayFile,
      });
      continue;
    }
    addAsset(assets, name, body, problems);
  }
  let manifest: unknown;
  if (manifestText !== undefined) {
    const parsed = parseJsonText(manifestText.replace(/^\uFEFF/, ""), "design.json");
    if ("problem" in parsed) problems.push(parsed.problem);
    else {
      manifest = parsed.value;
      problems.push(...nestingProblems(manifest));
    }
  }
  if (problems.length) throw new BundleInvalid(problems);
  const einvoiceMapping = text(EINVOICE_MAPPING_FILE);
  return {
    manifest,
    manifestText,
    template: template!,
    css: text("style.css") ?? "",
    ...(einvoiceMapping !== undefined && { einvoiceMapping }),
    assets,
  };
}

/**
 * design.json nests at most MAX_PARAMS_DEPTH levels below its fields, so sampleParams nest as deep
 * as a generation's params may. Checked without recursion before anything else walks the value: a
 * deeper one overflowed the stack of the content hash (`canonicalJson`), of JSON.stringify and of
 * the DynamoDB marshaller (a 500); now it is this one problem (422 DESIGN_BUNDLE_INVALID).
 */
function nestingProblems(manifest: unknown): BundleProblem[] {
  const path = tooDeepPath(manifest, MAX_PARAMS_DEPTH + 1);
  if (!path) return [];
  return [
    {
      file: "design.json",
      field: path.join("."),
      text: fillBoth(authoringText.tooDeep, { depth: MAX_PARAMS_DEPTH }),
    },
  ];
}

/** JSON text with the line and column of a syntax error. */
export function parseJsonText(text: string, file: string): { value: unknown } | { problem: BundleProblem } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    const message = (err as Error).message.replace(/\s+/g, " ");
    const at = /position (\d+)/.exec(message);
    const position = at ? lineColumn(text, Number(at[1])) : {};
    return {
      problem: {
        file,
        ...position,
        text: fillBoth(authoringText.notJson, { reason: message }),
      },
    };
  }
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

function assetPath(rawName: string): string {
  const name = rawName.replace(/\\/g, "/").replace(/^\/+/, "");
  return name.startsWith("assets/") ? name : `assets/${name}`;
}

function addAsset(assets: DesignBundle["assets"], name: string, body: Buffer, problems: BundleProblem[]): void {
  const normalized = posix.normalize(name);
  if (normalized !== name || name.includes("..") || name.endsWith("/") || name.length > 200) {
    problems.push({
      file: name,
      text: authoringText.assetNamePlain,
    });
    return;
  }
  const contentType = contentTypeOfAsset(name);
  if (!contentType) {
    problems.push({
      file: name,
      text: authoringText.assetType,
    });
    return;
  }
  assets[name] = { contentType, body };
}

/** The one folder every member sits in (`invoice/`), or "" when design.json is at the top. */
function commonFolder(names: string[]): string {
  if (names.includes("design.json")) return "";
  const first = names[0]?.split("/")[0];
  if (first && names.every((n) => n.startsWith(`${first}/`)) && names.includes(`${first}/design.json`))
    return `${first}/`;
  return "";
}

const zipTooLarge = fillBoth(authoringText.zipTooLarge, { mb: BUNDLE_LIMITS.maxBundleBytes / 1024 / 1024 });

function readZipFiles(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const invalid = (text: Bilingual) => reject(new BundleInvalid([{ file: "(zip)", text }]));
    yauzl.fromBuffer(zip, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true }, (err, archive) => {
      if (err || !archive) return invalid(fillBoth(authoringText.zipUnreadable, { reason: err?.message ?? "empty" }));
      const files = new Map<string, Buffer>();
      let total = 0;
      let entries = 0;
      archive.on("error", (e: Error) => invalid(fillBoth(authoringText.zipUnreadable, { reason: e.message })));
      archive.on("end", () => resolve(files));
      archive.on("entry", (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (name.endsWith("/") || name.startsWith("__MACOSX/") || posix.basename(name) === ".DS_Store") {
          archive.readEntry();
          return;
        }
        if (++entries > BUNDLE_LIMITS.maxFiles)
          return invalid(fillBoth(authoringText.zipTooManyFiles, { max: BUNDLE_LIMITS.maxFiles }));
        if (
          entry.uncompressedSize > BUNDLE_LIMITS.maxBundleBytes ||
          total + entry.uncompressedSize > BUNDLE_LIMITS.maxBundleBytes
        )
          return invalid(zipTooLarge);
        archive.openReadStream(entry, (openErr, stream) => {
          if (openErr || !stream)
            return invalid(fillBoth(authoringText.zipFileUnreadable, { name, reason: String(openErr?.message) }));
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => {
            total += c.length;
            if (total > BUNDLE_LIMITS.maxBundleBytes) {
              stream.destroy();
              invalid(zipTooLarge);
            } else chunks.push(c);
          });
          stream.on("error", (e: Error) =>
            invalid(fillBoth(authoringText.zipFileUnreadable, { name, reason: e.message })),
          );
          stream.on("end", () => {
            files.set(name, Buffer.concat(chunks));
            archive.readEntry();
          });
        });
      });
      archive.readEntry();
    });
  });
}

/** A fixed date for every member: the same bundle always zips to the same bytes. */
const ZIP_DATE = new Date("2000-01-01T00:00:00Z");

/** The bundle as the zip the admin CLI's folder layout describes (deflated, members sorted). */
export async function bundleZip(bundle: DesignBundle): Promise<Buffer> {
  const zip = new ZipFile();
  const add = (name: string, body: Buffer) => zip.addBuffer(body, name, { mtime: ZIP_DATE, mode: 0o100644 });
  add("design.json", Buffer.from(`${JSON.stringify(bundle.manifest, null, 2)}\n`, "utf8"));
  add("template.liquid", Buffer.from(bundle.template, "utf8"));
  add("style.css", Buffer.from(bundle.css, "utf8"));
  if (bundle.einvoiceMapping !== undefined) add(EINVOICE_MAPPING_FILE, Buffer.from(bundle.einvoiceMapping, "utf8"));
  for (const name of Object.keys(bundle.assets).sort()) add(name, bundle.assets[name]!.body);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
