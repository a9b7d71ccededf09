import { describe, expect, it } from "vitest";
import { versionDiff } from "../../functions/app/studio/version-diff.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";

/** A bundle with only what the history compares filled in. */
const bundle = (template: string, css = "", parameters: unknown[] = []) =>
  ({ manifest: { parameters }, template, css, assets: {} }) as unknown as DesignBundle;

describe("the history's version diff", () => {
  it("marks added and removed lines with +/- and hunk headers, per file, in a fixed order", () => {
    const files = versionDiff(bundle("<h1>a</h1>\n<p>b</p>\n"), bundle("<h1>a</h1>\n<p>c</p>\n", "p {}\n"));
    expect(files.map((f) => f.file)).toEqual(["template.liquid", "style.css", "parameters"]);
    expect(files[0]!.lines).toEqual([
      { kind: "hunk", text: "@@ -1,2 +1,2 @@" },
      { kind: "same", text: " <h1>a</h1>" },
      { kind: "del", text: "-<p>b</p>" },
      { kind: "add", text: "+<p>c</p>" },
    ]);
    expect(files[1]!.lines.filter((l) => l.kind === "add")).toEqual([{ kind: "add", text: "+p {}" }]);
    expect(files[2]!.lines).toEqual([]);
  });

  it("does not report a missing final newline as a change to the last line", () => {
    const [template] = versionDiff(bundle("one\ntwo"), bundle("one\ntwo\nthree"));
    expect(template!.lines.filter((l) => l.kind !== "same" && l.kind !== "hunk")).toEqual([
      { kind: "add", text: "+three" },
    ]);
  });

  it("compares the parameters as pretty-printed JSON, one field a line", () => {
    const before = [{ name: "title", type: "text" }];
    const after = [{ name: "title", type: "text", label: "Title" }];
    const [, , parameters] = versionDiff(bundle("", "", before), bundle("", "", after));
    const changed = parameters!.lines
      .filter((l) => l.kind === "add" || l.kind === "del")
      .map((l) => l.text.replace(/^([+-])\s+/, "$1"));
    expect(changed).toEqual(['-"type": "text"', '+"type": "text",', '+"label": "Title"']);
  });
});
