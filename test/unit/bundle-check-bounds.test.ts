import { describe, expect, it } from "vitest";
import { rawFromJsonForm } from "#shared/authoring/bundle-codec.ts";
import {
  BUNDLE_LIMITS,
  BundleInvalid,
  checkBundle,
  lineIndex,
  MAX_BUNDLE_PROBLEMS,
  strictBundle,
} from "#shared/authoring/bundle-rules.ts";

/**
 * The bundle checks do work linear in the bundle, whatever its problems: each
 * text's lines are indexed once (every missing `assets/…` reference split everything before it into
 * lines: 40,000 of them took 23 s), design.json is parsed once (it was parsed again for every
 * problem), and the checks stop after MAX_BUNDLE_PROBLEMS problems, the list then ending with a note
 * that more were left out.
 */

// A 1×1 transparent PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const form = (fields: Record<string, unknown>) => rawFromJsonForm({ label: "Bounds", parameters: [], ...fields });

/**
 * CPU milliseconds `run` takes: this process's CPU time, not the wall clock, so that the other test
 * worker and the stacks beside it on a busy machine do not count (a quadratic check still does).
 */
function timed<T>(run: () => T): { value: T; ms: number } {
  const start = process.cpuUsage();
  const value = run();
  const used = process.cpuUsage(start);
  return { value, ms: (used.user + used.system) / 1000 };
}

const LEFT_OUT = `more problems were left out: only the first ${MAX_BUNDLE_PROBLEMS} are listed`;

describe("bundle checks: bounded work and at most 50 problems", () => {
  it("checks a template of 40,000 missing asset references in well under a second (23 s before), listing 50 and a note", () => {
    const raw = form({ template: "assets/a\n".repeat(40_000) });
    const { value, ms } = timed(() => checkBundle(raw));
    // Generous for a slow machine: the linear check takes tens of milliseconds.
    expect(ms).toBeLessThan(2_000);
    expect(MAX_BUNDLE_PROBLEMS).toBe(50);
    expect(value.problems).toHaveLength(MAX_BUNDLE_PROBLEMS + 1);
    expect(value.problems.slice(0, MAX_BUNDLE_PROBLEMS).map((p) => [p.file, p.line, p.column])).toEqual(
      Array.from({ length: MAX_BUNDLE_PROBLEMS }, (_, i) => ["template.liquid", i + 1, 1]),
    );
    expect(value.problems.at(-1)).toEqual({
      file: "template.liquid",
      text: { en: LEFT_OUT, ja: `ほかにも問題があります（最初の ${MAX_BUNDLE_PROBLEMS} 件のみ表示しています）` },
    });
  });

  it("checks the longest template and style (1,000,000 characters each), every reference found or not, in bounded time", () => {
    const present = "assets/a.png ".repeat(Math.floor(BUNDLE_LIMITS.maxTextChars / 13));
    const missing = "url(assets/b.png)\n".repeat(Math.floor(BUNDLE_LIMITS.maxTextChars / 18));
    const both = form({ template: present, style: missing, assets: { "a.png": PNG } });
    const { value, ms } = timed(() => checkBundle(both));
    expect(ms).toBeLessThan(2_000);
    expect(value.problems).toHaveLength(MAX_BUNDLE_PROBLEMS + 1);
    expect(value.problems[0]).toMatchObject({ file: "style.css", line: 1, column: 5 });
    expect(value.problems.at(-1)).toMatchObject({ file: "style.css", text: { en: LEFT_OUT } });

    // Every reference present: the whole text is scanned, still linear.
    const clean = form({ template: present, style: present, assets: { "a.png": PNG } });
    const whole = timed(() => checkBundle(clean));
    expect(whole.ms).toBeLessThan(2_000);
    expect(whole.value.problems).toEqual([]);
  });

  it("places a problem far into a long text at its own line and column", () => {
    const template = `${"assets/a.png\n".repeat(70_000)}<img src="assets/missing.png">`;
    const { problems } = checkBundle(form({ template, assets: { "a.png": PNG } }));
    expect(problems).toEqual([
      {
        file: "template.liquid",
        line: 70_001,
        column: 11,
        text: {
          en: "names assets/missing.png, which the bundle does not have",
          ja: "バンドルにない assets/missing.png を参照しています",
        },
      },
    ]);
  });

  it("parses design.json once for all its problems, and stops at 50 of them", () => {
    const manifest = {
      label: "Many",
      parameters: Array.from({ length: 500 }, (_, i) => ({ name: `p${i}`, type: "bogus", label: "P" })),
    };
    const manifestText = JSON.stringify(manifest, null, 2);
    const { value, ms } = timed(() =>
      checkBundle({ manifest: JSON.parse(manifestText), manifestText, template: "", css: "", assets: {} }),
    );
    expect(ms).toBeLessThan(2_000);
    expect(value.problems).toHaveLength(MAX_BUNDLE_PROBLEMS + 1);
    // Each parameter takes 5 lines after the 3 before the first: its `type` is the 3rd of them.
    expect(value.problems.slice(0, 3).map((p) => [p.field, p.line, p.column])).toEqual([
      ["parameters.0.type", 6, 7],
      ["parameters.1.type", 11, 7],
      ["parameters.2.type", 16, 7],
    ]);
    expect(value.problems.at(-1)).toMatchObject({ file: "design.json", text: { en: LEFT_OUT } });
  });

  it("caps sampleParams mismatches too", () => {
    const raw = form({
      parameters: [{ name: "rows", type: "array", label: "Rows", spec: [{ name: "n", type: "number", label: "N" }] }],
      sampleParams: { rows: Array.from({ length: 100_000 }, () => ({ n: "not a number" })) },
      template: "",
    });
    const { value, ms } = timed(() => checkBundle(raw));
    expect(ms).toBeLessThan(2_000);
    expect(value.problems).toHaveLength(MAX_BUNDLE_PROBLEMS + 1);
    expect(value.problems[0]?.field).toBe("sampleParams.rows.0.n");
    expect(value.problems.at(-1)?.text.en).toBe(LEFT_OUT);
  });

  it("answers 422 with the same 50 details and the note, whatever produced the problems", () => {
    const err = (() => {
      try {
        strictBundle(form({ template: "assets/a ".repeat(1_000) }));
      } catch (e) {
        return e;
      }
    })() as BundleInvalid;
    expect(err).toBeInstanceOf(BundleInvalid);
    expect(err.details).toHaveLength(MAX_BUNDLE_PROBLEMS + 1);
    expect(err.details.at(-1)).toMatchObject({ file: "template.liquid", text: { en: LEFT_OUT } });

    // The JSON form's own shape problems (unknown fields) are capped the same way.
    const unknown = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`extra${i}`, 1]));
    const shape = (() => {
      try {
        form({ template: "", ...unknown });
      } catch (e) {
        return e;
      }
    })() as BundleInvalid;
    expect(shape.details).toHaveLength(MAX_BUNDLE_PROBLEMS + 1);
    expect(shape.details[0]).toMatchObject({ file: "design.json", field: "extra0" });
    expect(shape.details.at(-1)).toMatchObject({ file: "design.json", text: { en: LEFT_OUT } });
  });

  it("lineIndex answers the line and column of any offset", () => {
    const text = "ab\ncd\n\nefg";
    const at = lineIndex(text);
    expect([0, 1, 2, 3, 5, 6, 7, 9].map((o) => at(o))).toEqual([
      { line: 1, column: 1 },
      { line: 1, column: 2 },
      { line: 1, column: 3 },
      { line: 2, column: 1 },
      { line: 2, column: 3 },
      { line: 3, column: 1 },
      { line: 4, column: 1 },
      { line: 4, column: 3 },
    ]);
  });
});
