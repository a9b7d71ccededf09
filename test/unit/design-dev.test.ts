import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { BundleInvalid } from "#shared/authoring/bundle-rules.ts";
import { BundleError } from "#shared/authoring/load-bundle.ts";
import { PlatenError, untranslated } from "#shared/errors/platen-error.ts";
import { changedToName, isScratchFile } from "#infra/design-dev/render-loop.ts";
import { describeProblem, problemsOf } from "#infra/design-dev/render-problems.ts";
import { startDevServer } from "#infra/design-dev/dev-server.ts";

/** `npm run design:dev`'s wording of a failed render and the files it leaves out (shared/designs/README.md). */
describe("design:dev problems", () => {
  it("keeps a bundle check's file, line and column", () => {
    const problems = problemsOf(
      new BundleInvalid([
        { file: "design.json", field: "page.size", line: 4, column: 5, text: untranslated("bad size") },
      ]),
    );
    expect(problems.map(describeProblem)).toEqual(["design.json:4:5 (page.size): bad size"]);
  });

  it("places a render-time template error at the line and column Liquid names", () => {
    const err = new PlatenError("DESIGN_BUNDLE_INVALID", {
      details: [
        {
          file: "template.liquid",
          code: "TEMPLATE_FAILED",
          text: untranslated("template error: undefined variable: x, line:3, col:7"),
        },
      ],
    });
    expect(problemsOf(err)).toEqual([
      {
        file: "template.liquid",
        line: 3,
        column: 7,
        code: "TEMPLATE_FAILED",
        text: untranslated("template error: undefined variable: x"),
      },
    ]);
  });

  it("names a refusal without details by its catalogue code, and a folder that went away", () => {
    expect(problemsOf(new PlatenError("RENDER_TIMEOUT")).map(describeProblem)[0]).toMatch(
      /^\(render\): RENDER_TIMEOUT: /,
    );
    expect(problemsOf(new BundleError("design folder not found: /x"))).toEqual([
      { file: "(folder)", text: untranslated("design folder not found: /x") },
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

/** A GET to the dev server with the Host header a browser would send for `host`. */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("design:dev answers only to its own address (DNS rebinding)", () => {
  it("serves 127.0.0.1:<port> and localhost:<port>, and refuses any other Host with a short 403", async () => {
    const server = await startDevServer("/tmp/my-invoice", 0);
    try {
      const port = Number(new URL(server.url).port);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
        const own = await getWithHost(port, "/state.json", host);
        expect(own.status).toBe(200);
        expect(JSON.parse(own.body)).toEqual({ folder: "my-invoice" });
      }
      const foreign = [
        `attacker.example:${port}`,
        "attacker.example",
        `127.0.0.1:${port + 1}`,
        "localhost",
        `127.0.0.1.nip.io:${port}`,
      ];
      for (const host of foreign)
        for (const path of ["/state.json", "/", "/render/1/document.pdf", "/events"]) {
          const refused = await getWithHost(port, path, host);
          expect(refused.status).toBe(403);
          expect(refused.body).not.toContain("my-invoice");
          expect(refused.body.length).toBeLessThan(100);
        }
    } finally {
      await server.close();
    }
  });
});
