import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Comments, test titles and docs cite what a reader of the repository can open: an OpenAPI
 * operation (`shared/openapi/operations.ts`), an error code (`shared/errors/catalogue.ts`) or a
 * README section (README.md#imports-run-one-way). Section numbers of a specification that is not
 * in the repository, a design document beside it, a conventions file and tracker issue numbers
 * are refused.
 */

const root = path.resolve(import.meta.dirname, "../..");
const folders = ["shared", "functions", "infra", "test"];
const self = path
  .relative(root, import.meta.filename)
  .split(path.sep)
  .join("/");

/** Each outside citation, as precisely as it is written. */
const CITATIONS: { name: string; pattern: RegExp }[] = [
  // "spec 4.14", "Spec 8", "spec sections 5.1–5.3"; not "OpenAPI spec 3.1" or "JSON Schema spec 2020-12".
  {
    name: "a section of the API specification",
    pattern:
      /(?<!\b(?:OpenAPI|JSON Schema|ZIP|PDF|RFC|ECMAScript|TC39) )\b[Ss]pec(?:ification)?(?: sections?)? §?[1-9][0-9]?(?:\.[0-9]{1,2})?(?![0-9-])/,
  },
  // "DESIGN: retention", "DESIGN.md", "DESIGN webhooks row"; not the code DESIGN_NOT_FOUND.
  { name: "the design document", pattern: /\bDESIGN(?:\.md\b|:| [a-z])|\(DESIGN,/ },
  // "issue 14 item 1", "(issue 16)", "Issue 18"; not "an issue of one kind" or ".../issues/12".
  { name: "a tracker issue", pattern: /\b[Ii]ssues? #?[0-9]+/ },
  { name: "the conventions file", pattern: /\bCONVENTIONS(?:\.md)?\b/ },
  // "(item 3)", "(items 2 and 5)": items of a tracker issue, meaningless without it.
  { name: "an item of a tracker issue", pattern: /\(items? [0-9]+(?:(?:, | and |–)[0-9]+)*[),]/ },
];

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".") || name.startsWith("cdk.out")) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else if (/\.(ts|mts|mjs|js|md)$/.test(name)) out.push(p);
  }
  return out;
}

function citationsIn(text: string): string[] {
  return CITATIONS.filter((c) => c.pattern.test(text)).map((c) => c.name);
}

describe("citations", () => {
  it("name only what is in the repository", () => {
    const found: string[] = [];
    const all = [...folders.flatMap((f) => files(path.join(root, f))), path.join(root, "README.md")];
    for (const file of all) {
      const rel = path.relative(root, file).split(path.sep).join("/");
      if (rel === self) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const kinds = citationsIn(line);
          if (kinds.length > 0) {
            found.push(`${rel}:${i + 1}: ${kinds.join(", ")}: ${line.trim().slice(0, 160)}`);
          }
        });
    }
    expect(found).toEqual([]);
  });

  it("recognises each kind of outside citation and lets other uses of the words through", () => {
    const cited = [
      "(spec 4.14)",
      "spec 8: 60 s",
      "Spec sections 4.13, 5",
      "(spec 2.8, 7.1)",
      "spec 5.3's flow",
      "DESIGN: retention",
      "the floor of DESIGN.md",
      "DESIGN webhooks row",
      "(issue 14 item 1)",
      "Issue 18, items 1–3",
      "see CONVENTIONS.md",
      "passcode hashes (item 3)",
      "the process (item 3, last: …)",
    ];
    const allowed = [
      "OpenAPI spec 3.1",
      "an issue of one kind",
      "`spec` holds the children of array/collection",
      "DESIGN_NOT_FOUND",
      "a parameter spec, 2 levels deep",
      "github.com/panva/node-oidc-provider/issues/12",
      "RFC 6749 §5.2",
      "1 to 100 items (at most 100)",
    ];
    expect(cited.filter((t) => citationsIn(t).length === 0)).toEqual([]);
    expect(allowed.filter((t) => citationsIn(t).length > 0)).toEqual([]);
  });
});
