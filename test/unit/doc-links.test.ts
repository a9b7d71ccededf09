import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every relative link in the repository's Markdown opens a file of the repository and, when it
 * names a section, a heading of that file; no link leaves the repository (a web address, or a
 * path above its root).
 */

const root = path.resolve(import.meta.dirname, "../..");

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".") || name.startsWith("cdk.out")) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) markdownFiles(p, out);
    else if (name.endsWith(".md")) out.push(p);
  }
  return out;
}

/** The text outside fenced code blocks and inline code, where links and headings are read. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
  });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (!heading) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The problems of one Markdown file's links, as `file:line: target: why`. */
function linkProblems(file: string): string[] {
  const rel = path.relative(root, file).split(path.sep).join("/");
  const problems: string[] = [];
  prose(readFileSync(file, "utf8")).forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      const at = `${rel}:${i + 1}: ${target}`;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        problems.push(`${at}: leaves the repository`);
        continue;
      }
      const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
      const dest = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURI(pathPart));
      if (path.relative(root, dest).startsWith("..")) problems.push(`${at}: leaves the repository`);
      else if (!existsSync(dest)) problems.push(`${at}: no such file`);
      else if (anchor !== undefined) {
        if (!dest.endsWith(".md")) problems.push(`${at}: a section of a file that is not Markdown`);
        else if (!anchorsOf(dest).has(decodeURIComponent(anchor))) problems.push(`${at}: no such section`);
      }
    }
  });
  return problems;
}

describe("links in the Markdown", () => {
  it("open a file and a section of the repository", () => {
    expect(markdownFiles(root).flatMap(linkProblems)).toEqual([]);
  });

  it("make anchors the way GitHub does", () => {
    expect(slug("The dev loop: `npm run design:dev`")).toBe("the-dev-loop-npm-run-designdev");
    expect(slug("`{auth_url}`")).toBe("auth_url");
    expect(slug("Errors")).toBe("errors");
    expect(slug("Imports run one way")).toBe("imports-run-one-way");
    expect(slug("Routes (below `{base_url}`)")).toBe("routes-below-base_url");
    expect(slug("File view rules (`shared/site/file-access.ts`)")).toBe("file-view-rules-sharedsitefile-accessts");
  });
});

describe("the README", () => {
  it("stays a map: 250 lines at most (the rest lives in the folder READMEs)", () => {
    const lines = readFileSync(path.join(root, "README.md"), "utf8").trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(250);
  });
});
