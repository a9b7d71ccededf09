import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Imports between the folders of shared/ run one way (CONVENTIONS.md): a folder that needs
 * another's shape moves it down or gets it through deps. This reads every import of shared/
 * (static, re-exports, dynamic, type-only alike) and fails on any cycle between folders.
 *
 * KNOWN_CYCLES is empty since issue 16 cut the last ones (shapes moved down: app-key to
 * workspaces, language to errors, share-link to shared/, the event outbox to webhooks; the
 * dispatcher reads file records through its deps). Any cycle now fails; do not list one.
 */
const KNOWN_CYCLES: string[][] = [];

const root = resolve(import.meta.dirname, "../..");
const shared = join(root, "shared");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "samples" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

/** The specifiers a file imports (comments stripped first, so examples in TSDoc do not count). */
function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(IMPORT)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** shared/<folder> of a path inside shared/ (a file directly in shared/ is its own node). */
function unitOf(path: string): string | undefined {
  const rel = relative(shared, path);
  if (rel.startsWith("..")) return undefined;
  const [first, ...rest] = rel.split("/");
  return rest.length ? first : rel;
}

function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (specifier.startsWith("#shared/")) return join(shared, specifier.slice("#shared/".length));
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier);
  return undefined;
}

/** Folder → folder edges, each with the file imports that make it. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(shared)) {
    const from = unitOf(file)!;
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      const target = resolveSpecifier(file, specifier);
      const to = target && unitOf(target);
      if (!to || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      const line = `${relative(root, file)} → ${specifier}`;
      if (!edges.get(to)?.includes(line)) edges.set(to, [...(edges.get(to) ?? []), line]);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan), each sorted. */
function cyclesOf(graph: Map<string, Map<string, string[]>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) !== indices.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return cycles.sort((a, b) => a.join().localeCompare(b.join()));
}

/** The imports inside one cycle, for a failure message that says where to cut. */
function importsWithin(graph: Map<string, Map<string, string[]>>, cycle: string[]): string[] {
  return cycle.flatMap((from) => cycle.flatMap((to) => graph.get(from)?.get(to) ?? []));
}

describe("imports between shared/ folders", () => {
  it("form no cycle beyond the known ones, and every known one still exists", () => {
    const graph = folderGraph();
    const cycles = cyclesOf(graph);
    const detail = cycles.map((c) => `${c.join(" ↔ ")}:\n  ${importsWithin(graph, c).join("\n  ")}`).join("\n");
    expect(cycles, `cycles between shared/ folders:\n${detail}`).toEqual(KNOWN_CYCLES);
  });

  it("sees every kind of import, and a cycle when there is one", () => {
    const source = [
      'import { a } from "#shared/x/a.ts";',
      'import type { B } from "../y/b.ts";',
      'export { c } from "./c.ts";',
      'const d = await import("#shared/z/d.ts");',
      'import "#shared/side/effect.ts";',
      '// import { no } from "#shared/comment/no.ts";',
      '/** import { no } from "#shared/doc/no.ts"; */',
    ].join("\n");
    expect(importsOf(source)).toEqual([
      "#shared/x/a.ts",
      "../y/b.ts",
      "./c.ts",
      "#shared/z/d.ts",
      "#shared/side/effect.ts",
    ]);
    const edge = (to: string) => new Map([[to, ["f"]]]);
    const graph = new Map([
      ["a", edge("b")],
      ["b", edge("c")],
      ["c", edge("a")],
      ["d", edge("a")],
    ]);
    expect(cyclesOf(graph)).toEqual([["a", "b", "c"]]);
  });
});
