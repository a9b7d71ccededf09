import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Imports between folders run one way: a folder that needs another's shape moves it down or
 * gets it through deps. This reads every import of shared/, functions/ and infra/ (static,
 * re-exports, dynamic, type-only alike), resolves every alias of package.json "imports" and
 * every relative path, and fails on any cycle between folders. Each folder (shared/<x>,
 * functions/<x>, infra/<x>, with its subfolders) is one node; a file directly in shared/,
 * functions/ or infra/ is its own. There is no allow-list: cut a cycle by moving the shared
 * shape down to a folder both may import.
 */

const root = resolve(import.meta.dirname, "../..");
const LAYERS = ["shared", "functions", "infra"];

/** `#shared/*` → `./shared/*` and every other alias of package.json "imports". */
const aliases: [prefix: string, target: string][] = Object.entries(
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")).imports as Record<string, string>,
).map(([from, to]) => [from.replace(/\*$/, ""), join(root, to.replace(/\*$/, ""))]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ["samples", "node_modules"].includes(entry.name) ? [] : sourceFiles(path);
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

/** The folder node of a path: `shared/generation` for shared/generation/http/x.ts; undefined outside the layers. */
function unitOf(path: string): string | undefined {
  const [layer, ...rest] = relative(root, path).split("/");
  if (!layer || !LAYERS.includes(layer) || rest.length === 0) return undefined;
  return `${layer}/${rest[0]}`;
}

/** The file a specifier names, or undefined for a package. An alias that matches nothing throws. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier);
  if (!specifier.startsWith("#")) return undefined;
  const alias = aliases.find(([prefix]) => specifier.startsWith(prefix));
  if (!alias) throw new Error(`${relative(root, from)}: ${specifier} matches no alias of package.json "imports"`);
  return join(alias[1], specifier.slice(alias[0].length));
}

type Graph = Map<string, Map<string, string[]>>;

/** An import of a room's face: `#shared/generation/<room>/index.ts`. */
const ROOM_FACE = /→ #shared\/generation\/[a-z-]+\/index\.ts$/;

/** Room → room edges inside shared/generation: each of its folders is a node, as the folders of shared/ are. */
function roomGraph(): Graph {
  const generation = join(root, "shared/generation");
  const roomOf = (path: string) => {
    const [room, ...rest] = relative(generation, path).split("/");
    return room && room !== ".." && rest.length > 0 ? room : undefined;
  };
  const graph: Graph = new Map();
  for (const file of sourceFiles(generation)) {
    const from = roomOf(file)!;
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      const target = resolveSpecifier(file, specifier);
      const to = target && roomOf(target);
      if (!to || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      edges.set(to, [...(edges.get(to) ?? []), `${relative(root, file)} → ${specifier}`]);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Folder → folder edges over shared/, functions/ and infra/, each with the file imports that make it. */
function folderGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of LAYERS.flatMap((layer) => sourceFiles(join(root, layer)))) {
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
function cyclesOf(graph: Graph): string[][] {
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
function importsWithin(graph: Graph, cycle: string[]): string[] {
  return cycle.flatMap((from) => cycle.flatMap((to) => graph.get(from)?.get(to) ?? []));
}

/** The imports from folders matching `from` into folders matching `to`. */
function importsBetween(graph: Graph, from: (unit: string) => boolean, to: (unit: string) => boolean): string[] {
  return [...graph]
    .filter(([unit]) => from(unit))
    .flatMap(([, edges]) => [...edges].filter(([unit]) => to(unit)).flatMap(([, lines]) => lines));
}

describe("imports between the folders of shared/, functions/ and infra/", () => {
  const graph = folderGraph();

  it("form no cycle", () => {
    const cycles = cyclesOf(graph);
    const detail = cycles.map((c) => `${c.join(" ↔ ")}:\n  ${importsWithin(graph, c).join("\n  ")}`).join("\n");
    expect(cycles, `cycles between folders:\n${detail}`).toEqual([]);
  });

  it("never run from shared/ into infra/", () => {
    const upward = importsBetween(
      graph,
      (u) => u.startsWith("shared/"),
      (u) => u.startsWith("infra/"),
    );
    expect(upward, "shared/ imports infra/").toEqual([]);
  });

  it("leave shared/definitions at the bottom: it imports no other folder", () => {
    const out = importsBetween(
      graph,
      (u) => u === "shared/definitions",
      () => true,
    );
    expect(out, "shared/definitions imports").toEqual([]);
  });

  it("reach shared/generation from outside only through the faces of its rooms", () => {
    const past = importsBetween(
      graph,
      (u) => u !== "shared/generation",
      (u) => u === "shared/generation",
    ).filter((line) => !ROOM_FACE.test(line));
    expect(past, "imports of generation past its rooms' faces").toEqual([]);
  });

  it("leave the rooms of shared/generation without a cycle, each reaching another only through its face", () => {
    const rooms = roomGraph();
    const cycles = cyclesOf(rooms);
    const detail = cycles.map((c) => `${c.join(" ↔ ")}:\n  ${importsWithin(rooms, c).join("\n  ")}`).join("\n");
    expect(cycles, `cycles between rooms:\n${detail}`).toEqual([]);
    const past = [...rooms.values()].flatMap((edges) => [...edges.values()].flat()).filter((l) => !ROOM_FACE.test(l));
    expect(past, "imports between rooms past their faces").toEqual([]);
    expect(rooms.size, "rooms with imports").toBeGreaterThan(5);
  });

  it("see the whole tree: every layer and the definitions are nodes", () => {
    const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((edges) => [...edges.keys()])]);
    for (const node of ["shared/definitions", "shared/http", "functions/api", "infra/local", "infra/stack"]) {
      expect(nodes, node).toContain(node);
    }
  });
});

describe("the import reader", () => {
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

  it("resolves every alias and relative path to its folder", () => {
    const from = join(root, "shared/http/middleware/admission.ts");
    const unit = (specifier: string) => unitOf(resolveSpecifier(from, specifier)!);
    expect(unit("#infra/local/gateway.ts")).toBe("infra/local");
    expect(unit("#shared/definitions/routes.ts")).toBe("shared/definitions");
    expect(unit("../../../functions/api/get-status.ts")).toBe("functions/api");
    expect(unit("../api-types.ts")).toBe("shared/http");
    expect(unit("../../clock.ts")).toBe("shared/clock.ts");
    expect(resolveSpecifier(from, "zod")).toBeUndefined();
    expect(() => resolveSpecifier(from, "#nowhere/x.ts")).toThrow(/matches no alias/);
  });
});
