import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BundleInvalid } from "#shared/authoring/bundle-rules.ts";
import { BundleError, loadBundleFromDir } from "#shared/authoring/load-bundle.ts";

const samplesDir = fileURLToPath(new URL("../../shared/designs/samples/", import.meta.url));

/** The smallest manifest the schema accepts, with one parameter of each nesting kind. */
const minimalManifest = {
  label: "Minimal",
  parameters: [
    { name: "title", type: "text", label: "Title" },
    { name: "rows", type: "array", label: "Rows", spec: [{ name: "qty", type: "number", label: "Qty" }] },
  ],
};

// A 1×1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

let root: string;
let counter = 0;

interface BundleFiles {
  manifest?: unknown;
  /** Raw design.json text; wins over `manifest`. */
  manifestText?: string;
  template?: string | null;
  css?: string;
  assets?: Record<string, Buffer | string>;
}

/** Writes a bundle folder under the test's temp root; `template: null` leaves it out. */
async function writeBundle(files: BundleFiles = {}): Promise<string> {
  const dir = join(root, `bundle-${++counter}`);
  await mkdir(dir, { recursive: true });
  const text = files.manifestText ?? JSON.stringify(files.manifest ?? minimalManifest, null, 2);
  await writeFile(join(dir, "design.json"), text);
  if (files.template !== null) await writeFile(join(dir, "template.liquid"), files.template ?? "<h1>{{ title }}</h1>");
  if (files.css !== undefined) await writeFile(join(dir, "style.css"), files.css);
  for (const [name, body] of Object.entries(files.assets ?? {})) {
    const path = join(dir, "assets", name);
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, body);
  }
  return dir;
}

/**
 * Loads a bundle that must fail; checks it is a one-line error the admin CLI prints (a missing
 * folder, or an invalid bundle naming its files) and returns the message.
 */
async function bundleError(dir: string): Promise<string> {
  const err = await loadBundleFromDir(dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "loading should have failed").toBeDefined();
  expect(err instanceof BundleError || err instanceof BundleInvalid, String(err)).toBe(true);
  const { message, name } = err as Error;
  expect(["BundleError", "BundleInvalid"]).toContain(name);
  expect(message.trim()).not.toBe("");
  expect(message, "the CLI prints the message on one line").not.toMatch(/[\r\n]/);
  return message;
}

const withParams = (parameters: unknown[]) => ({ ...minimalManifest, parameters });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "platen-bundle-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("loadBundleFromDir: valid bundles", () => {
  it("loads a minimal bundle with an asset, applying manifest defaults", async () => {
    const dir = await writeBundle({ css: "h1 { color: red }", assets: { "logo.png": PNG } });
    const bundle = await loadBundleFromDir(dir);
    expect(bundle.manifest.label).toBe("Minimal");
    expect(bundle.manifest.parameters).toHaveLength(2);
    expect(bundle.manifest.page).toEqual({
      size: "A4",
      orientation: "portrait",
      margin: { top: "10mm", right: "10mm", bottom: "10mm", left: "10mm" },
    });
    expect(bundle.template).toBe("<h1>{{ title }}</h1>");
    expect(bundle.css).toBe("h1 { color: red }");
    expect(Object.keys(bundle.assets)).toEqual(["assets/logo.png"]);
    expect(bundle.assets["assets/logo.png"]!.contentType).toBe("image/png");
    expect(bundle.assets["assets/logo.png"]!.body.equals(PNG)).toBe(true);
  });

  it("treats style.css and assets/ as optional", async () => {
    const bundle = await loadBundleFromDir(await writeBundle());
    expect(bundle.css).toBe("");
    expect(bundle.assets).toEqual({});
  });

  it("keys nested assets by their path under assets/ and maps every supported type", async () => {
    const dir = await writeBundle({
      assets: {
        "a.png": PNG,
        "b.JPG": "x",
        "c.jpeg": "x",
        "d.gif": "x",
        "e.svg": "<svg/>",
        "f.webp": "x",
        "g.css": "p{}",
        "icons/sub/h.svg": "<svg/>",
        "fonts/i.woff2": "x",
        "fonts/j.ttf": "x",
      },
    });
    const { assets } = await loadBundleFromDir(dir);
    const types = Object.fromEntries(Object.entries(assets).map(([k, v]) => [k, v.contentType]));
    expect(types).toEqual({
      "assets/a.png": "image/png",
      "assets/b.JPG": "image/jpeg",
      "assets/c.jpeg": "image/jpeg",
      "assets/d.gif": "image/gif",
      "assets/e.svg": "image/svg+xml",
      "assets/f.webp": "image/webp",
      "assets/g.css": "text/css",
      "assets/icons/sub/h.svg": "image/svg+xml",
      "assets/fonts/i.woff2": "font/woff2",
      "assets/fonts/j.ttf": "font/ttf",
    });
  });

  it("accepts a named page size or an explicit width and height", async () => {
    const dir = await writeBundle({
      manifest: { ...minimalManifest, page: { width: "4in", height: "6in", orientation: "landscape" } },
    });
    const { manifest } = await loadBundleFromDir(dir);
    expect(manifest.page.width).toBe("4in");
    expect(manifest.page.orientation).toBe("landscape");
  });
});

describe("loadBundleFromDir: broken bundles", () => {
  it("names a missing folder", async () => {
    const missing = join(root, "does-not-exist");
    expect(await bundleError(missing)).toContain("design folder not found");
  });

  it("treats a file where the folder should be as a missing folder", async () => {
    const file = join(root, "not-a-folder.txt");
    await writeFile(file, "x");
    expect(await bundleError(file)).toContain("design folder not found");
  });

  it("names a missing design.json", async () => {
    const dir = join(root, "empty-folder");
    await mkdir(dir, { recursive: true });
    const message = await bundleError(dir);
    expect(message).toMatch(/^invalid design bundle: design\.json: the bundle has no design\.json/);
  });

  it.each([
    ["a trailing comma", '{\n  "label": "x",\n  "parameters": [],\n}'],
    ["truncated text", '{ "label": "x", "parameters": ['],
    ["an empty file", ""],
  ])("reports invalid JSON (%s)", async (_label, text) => {
    expect(await bundleError(await writeBundle({ manifestText: text }))).toMatch(
      /^invalid design bundle: design\.json(:\d+:\d+)?: not valid JSON: /,
    );
  });

  it.each([
    ["a leading comment", '// my design\n{\n  "label": "x",\n  "parameters": []\n}\n'],
    ["an unquoted value", '{\n  "label": Minimal,\n  "parameters": []\n}\n'],
    ["an unquoted value near the end", '{\n  "label": "x",\n  "parameters": [],\n  "page": { "size": A4 }\n}'],
  ])("keeps the invalid-JSON message on one line (%s)", async (_label, text) => {
    // V8's "Unexpected token" messages quote the source around the error, newlines included.
    expect(await bundleError(await writeBundle({ manifestText: text }))).toMatch(
      /^invalid design bundle: design\.json(:\d+:\d+)?: not valid JSON: /,
    );
  });

  it.each([
    ["unknown type", withParams([{ name: "a", type: "image", label: "A" }]), "parameters.0.type"],
    ["array without spec", withParams([{ name: "a", type: "array", label: "A" }]), "parameters.0.spec"],
    ["array with an empty spec", withParams([{ name: "a", type: "array", label: "A", spec: [] }]), "parameters.0.spec"],
    ["collection without spec", withParams([{ name: "a", type: "collection", label: "A" }]), "parameters.0.spec"],
    [
      "text with spec",
      withParams([{ name: "a", type: "text", label: "A", spec: [{ name: "b", type: "text", label: "B" }] }]),
      "parameters.0.spec",
    ],
    [
      "duplicate top-level names",
      withParams([
        { name: "a", type: "text", label: "A" },
        { name: "a", type: "number", label: "A again" },
      ]),
      "parameters",
    ],
    [
      "duplicate nested names",
      withParams([
        {
          name: "rows",
          type: "array",
          label: "Rows",
          spec: [
            { name: "x", type: "text", label: "X" },
            { name: "x", type: "text", label: "X again" },
          ],
        },
      ]),
      "parameters.0.spec",
    ],
    ["unknown top-level key", { ...minimalManifest, colour: "red" }, "colour"],
    ["unknown parameter key", withParams([{ name: "a", type: "text", label: "A", required: true }]), "required"],
    ["missing label", { parameters: [] }, "label"],
    ["missing parameters", { label: "x" }, "parameters"],
    ["a JSON array instead of an object", [], "(root)"],
    ["width without height", { ...minimalManifest, page: { width: "4in" } }, "page"],
    ["bad margin unit", { ...minimalManifest, page: { margin: { top: "1em" } } }, "page.margin.top"],
  ])("rejects a schema violation: %s", async (_label, manifest, where) => {
    const message = await bundleError(await writeBundle({ manifest }));
    expect(message).toMatch(/^invalid design bundle: design\.json/);
    expect(message).toContain(where);
  });

  it("refuses a top-level parameter named file: the template's own file global", async () => {
    const message = await bundleError(
      await writeBundle({ manifest: withParams([{ name: "file", type: "text", label: "File" }]) }),
    );
    expect(message).toContain("parameters.0.name");
    expect(message).toContain('"file" is reserved');
    expect(message).toContain("{{ file.share.url }}");
    // Only the top level shares the template's scope with the global: a nested `file` is a field of its row.
    const nested = withParams([
      { name: "rows", type: "array", label: "Rows", spec: [{ name: "file", type: "text", label: "File" }] },
    ]);
    await expect(loadBundleFromDir(await writeBundle({ manifest: nested }))).resolves.toBeDefined();
  });

  it("words design.json's schema issues in English and Japanese; a missing key is required, not 'received undefined'", async () => {
    const err = await loadBundleFromDir(
      await writeBundle({ manifest: withParams([{ type: "text", label: "A" }]) }),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BundleInvalid);
    expect((err as BundleInvalid).details).toContainEqual(
      expect.objectContaining({ field: "parameters.0.name", text: { en: "is required", ja: "必須です" } }),
    );
    expect(JSON.stringify((err as BundleInvalid).details)).not.toContain("undefined");
  });

  it("names a missing template.liquid", async () => {
    const message = await bundleError(await writeBundle({ template: null }));
    expect(message).toContain("template.liquid: the bundle has no template.liquid");
  });

  it.each(["script.js", "README", "data.json", "nested/page.html"])(
    "rejects an unsupported asset (%s), naming it",
    async (name) => {
      const message = await bundleError(await writeBundle({ assets: { "ok.png": PNG, [name]: "x" } }));
      expect(message).toBe(
        `invalid design bundle: assets/${name}: assets are images (png, jpeg, gif, svg, webp), fonts (woff2, woff, ttf, otf) or stylesheets (css)`,
      );
    },
  );

  it("rejects an asset over 5 MB, naming it", async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 1);
    const message = await bundleError(await writeBundle({ assets: { "huge.png": big } }));
    expect(message).toBe("invalid design bundle: assets/huge.png: larger than 5 MB");
  });
});

describe("the sample designs", () => {
  it("all load", async () => {
    const names = (await readdir(samplesDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of names) {
      const bundle = await loadBundleFromDir(join(samplesDir, name));
      expect(bundle.manifest.label, name).not.toBe("");
      expect(bundle.template.length, name).toBeGreaterThan(0);
      for (const [key, asset] of Object.entries(bundle.assets)) {
        expect(key, name).toMatch(/^assets\//);
        expect(asset.body.length, `${name} ${key}`).toBeGreaterThan(0);
      }
    }
  });

  it("ship their assets with the right content type", async () => {
    const cert = await loadBundleFromDir(join(samplesDir, "certificate-en"));
    expect(cert.assets["assets/seal.svg"]?.contentType).toBe("image/svg+xml");
    const label = await loadBundleFromDir(join(samplesDir, "shipping-label"));
    expect(label.assets["assets/fragile.svg"]?.contentType).toBe("image/svg+xml");
  });
});
