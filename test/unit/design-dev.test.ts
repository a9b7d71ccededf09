import { describe, expect, it } from "vitest";
import { BundleInvalid } from "#shared/authoring/bundle-rules.ts";
import { BundleError } from "#shared/authoring/load-bundle.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { changedToName, isScratchFile } from "#infra/design-dev/render-loop.ts";
import { describeProblem, problemsOf } from "#infra/design-dev/render-problems.ts";

/** `npm run design:dev`'s wording of a failed render and the files it leaves out (shared/designs/README.md). */
describe("design:dev problems", () => {
  it("keeps a bundle check's file, line and column", () => {
    const problems = problemsOf(
      new BundleInvalid([{ file: "design.json", field: "page.size", line: 4, column: 5, message: "bad size" }]),
    );
    expect(problems.map(describeProblem)).toEqual(["design.json:4:5 (page.size): bad size"]);
  });

  it("places a render-time template error at the line and column Liquid names", () => {
    const err = new PlatenError("DESIGN_BUNDLE_INVALID", {
      details: [
        {
          file: "template.liquid",
          code: "TEMPLATE_FAILED",
          message: "template error: undefined variable: x, line:3, col:7",
        },
      ],
    });
    expect(problemsOf(err)).toEqual([
      {
        file: "template.liquid",
        line: 3,
        column: 7,
        code: "TEMPLATE_FAILED",
        message: "template error: undefined variable: x",
      },
    ]);
  });

  it("names a refusal without details by its catalogue code, and a folder that went away", () => {
    expect(problemsOf(new PlatenError("RENDER_TIMEOUT")).map(describeProblem)[0]).toMatch(
      /^\(render\): RENDER_TIMEOUT: /,
    );
    expect(problemsOf(new BundleError("design folder not found: /x"))).toEqual([
      { file: "(folder)", message: "design folder not found: /x" },
    ]);
  });

  it("leaves editors' scratch files out, never the bundle's own", () => {
    for (const path of [".template.liquid.swp", "4913", "style.css~", "#design.json#", "assets/.DS_Store"])
      expect(isScratchFile(path)).toBe(true);
    for (const path of ["design.json", "template.liquid", "style.css", "assets/logo.png", "assets/fonts/a.woff2"])
      expect(isScratchFile(path)).toBe(false);
  });

  it("names the files still in the folder, not a temporary file an editor renamed over the original", () => {
    const inFolder = new Set(["template.liquid", "style.css"]);
    const exists = (path: string) => inFolder.has(path);
    expect(changedToName(["sedYKAozl", "template.liquid"], exists)).toEqual(["template.liquid"]);
    expect(changedToName(["(start)"], exists)).toEqual(["(start)"]);
    expect(changedToName(["assets/old.png"], exists)).toEqual(["assets/old.png"]); // really deleted: still named
  });
});
