import { pathDecodes } from "#shared/web/path-segments.ts";

/** One row of a function's route table: the methods and path pattern a handler answers. */
export interface RouteRow {
  methods: readonly string[];
  /** `/file/:requestId/:fileId`: each `:name` matches one path segment. */
  path: string;
}

/** The route a request matched with its decoded path parameters, or the methods its path allows. */
export interface RouteMatch<R extends RouteRow> {
  route?: R;
  params: Record<string, string>;
  /** Methods of the rows whose path matched; a request matching a path but no method is 405. */
  allow: string[];
}

interface Compiled<R> {
  row: R;
  pattern: RegExp;
  names: string[];
}

/**
 * Compiles a route table once (per container) into a matcher: the first row whose path
 * and method match wins.
 */
export function routeMatcher<R extends RouteRow>(table: readonly R[]): (method: string, path: string) => RouteMatch<R> {
  const compiled = table.map(compile);
  return (method, path) => {
    // A segment that does not decode names no page: no row matches, so the answer is the 404 one.
    if (!pathDecodes(path)) return { params: {}, allow: [] };
    const onPath = compiled.filter((c) => c.pattern.test(path));
    const hit = onPath.find((c) => c.row.methods.includes(method.toUpperCase()));
    const values = hit ? hit.pattern.exec(path)!.slice(1) : [];
    return {
      ...(hit && { route: hit.row }),
      params: Object.fromEntries((hit?.names ?? []).map((name, i) => [name, decodeURIComponent(values[i]!)])),
      allow: onPath.flatMap((c) => [...c.row.methods]),
    };
  };
}

function compile<R extends RouteRow>(row: R): Compiled<R> {
  const names: string[] = [];
  const source = row.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { row, pattern: new RegExp(`^${source}$`), names };
}
