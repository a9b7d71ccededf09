import { describe, expect, it } from "vitest";
import { MAX_CHANGED_LINES, MAX_COMPARED_LINES, versionDiff } from "../../functions/site/studio/version-diff.ts";
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

  it("does not compare two 500,000-line versions: the file is too large, the others still compare", () => {
    const lines = (mark: string) => Array.from({ length: 500_000 }, (_, i) => `${mark}${i}`).join("\n");
    const files = versionDiff(bundle(lines("a"), "p {}\n"), bundle(lines("b"), "p { color: red }\n"));
    expect(files[0]).toEqual({ file: "template.liquid", lines: [], tooLarge: true });
    expect(files[1]!.tooLarge).toBeUndefined();
    expect(files[1]!.lines.filter((l) => l.kind === "add")).toEqual([{ kind: "add", text: "+p { color: red }" }]);
    expect(files[2]).toEqual({ file: "parameters", lines: [] });
  });

  it("compares a file of MAX_COMPARED_LINES lines, and one line more is too large", () => {
    const text = (n: number, last: string) =>
      `${Array.from({ length: n - 1 }, (_, i) => `line ${i}`).join("\n")}\n${last}\n`;
    const [atBound] = versionDiff(bundle(text(MAX_COMPARED_LINES, "old")), bundle(text(MAX_COMPARED_LINES, "new")));
    expect(atBound!.tooLarge).toBeUndefined();
    expect(atBound!.lines.filter((l) => l.kind === "add" || l.kind === "del").map((l) => l.text)).toEqual([
      "-old",
      "+new",
    ]);
    const [past] = versionDiff(bundle(text(MAX_COMPARED_LINES, "old")), bundle(text(MAX_COMPARED_LINES + 1, "new")));
    expect(past).toEqual({ file: "template.liquid", lines: [], tooLarge: true });
  });

  it("gives up past MAX_CHANGED_LINES lines added plus removed, within the size bound", () => {
    const lines = (mark: string, n: number) => Array.from({ length: n }, (_, i) => `${mark}${i}`).join("\n");
    // Every line differs: 2 × 600 lines changed is past the bound, 2 × 400 is within it.
    const [many] = versionDiff(bundle(lines("a", 600)), bundle(lines("b", 600)));
    expect(MAX_CHANGED_LINES).toBeLessThan(1_200);
    expect(many).toEqual({ file: "template.liquid", lines: [], tooLarge: true });
    const [few] = versionDiff(bundle(lines("a", 400)), bundle(lines("b", 400)));
    expect(few!.tooLarge).toBeUndefined();
    expect(few!.lines.filter((l) => l.kind === "add")).toHaveLength(400);
  });

  it("reports two equal versions as unchanged whatever their size", () => {
    const big = "x\n".repeat(MAX_COMPARED_LINES * 3);
    expect(versionDiff(bundle(big), bundle(big))[0]).toEqual({ file: "template.liquid", lines: [] });
  });
});
