import { PlatenError } from "#shared/errors/platen-error.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { requestText } from "./request-text.ts";

/** shared/limits/README.md#service-limits: params at most 1,000,000 bytes (UTF-8 of its JSON). */
export const MAX_PARAMS_BYTES = 1_000_000;

/** Levels of objects and arrays params may nest (a deeper value is 400 VALIDATION_FAILED). */
export const MAX_PARAMS_DEPTH = 64;

interface Visit {
  value: unknown;
  depth: number;
  key?: string;
  parent?: Visit;
}

/**
 * The path of the first object or array nested deeper than `maxDepth` levels below
 * `root` (which is level 1), found without recursion: any depth of JSON is checked in
 * constant stack, so a 5,000-deep body is a 400, never a stack overflow.
 */
export function tooDeepPath(root: unknown, maxDepth: number): string[] | undefined {
  const pending: Visit[] = [{ value: root, depth: 1 }];
  while (pending.length) {
    const visit = pending.pop()!;
    if (typeof visit.value !== "object" || visit.value === null) continue;
    if (visit.depth > maxDepth) {
      const path: string[] = [];
      for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.unshift(v.key);
      return path;
    }
    for (const [key, child] of Object.entries(visit.value))
      pending.push({ value: child, depth: visit.depth + 1, key, parent: visit });
  }
  return undefined;
}

/**
 * Size and circularity of one item's params. JSON text cannot hold a cycle, so a cycle
 * can only be expressed as a JSON Reference: an object `{"$ref": "#/…"}` whose pointer
 * names itself or one of its ancestors (resolving it would never end). Such a reference
 * is PARAMS_CIRCULAR_REFERENCE; references elsewhere are plain data.
 */
export function checkParamsShape(params: Record<string, unknown>, field: string): void {
  const bytes = Buffer.byteLength(JSON.stringify(params), "utf8");
  if (bytes > MAX_PARAMS_BYTES) {
    throw new PlatenError("PARAMS_TOO_LARGE", {
      details: [
        {
          field,
          code: "PARAMS_TOO_LARGE",
          text: fillBoth(requestText.paramsTooLarge, { bytes, max: MAX_PARAMS_BYTES }),
        },
      ],
    });
  }
  const cycle = findCircularRef(params, []);
  if (cycle) {
    throw new PlatenError("PARAMS_CIRCULAR_REFERENCE", {
      details: [
        {
          field: [field, ...cycle].join("."),
          code: "PARAMS_CIRCULAR_REFERENCE",
          text: requestText.circular,
        },
      ],
    });
  }
}

function findCircularRef(value: unknown, path: string[]): string[] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && (ref === "#" || ref.startsWith("#/"))) {
    const target = ref === "#" ? [] : ref.slice(2).split("/").map(unescapePointer);
    if (target.length <= path.length && target.every((seg, i) => seg === path[i])) return path;
  }
  for (const [key, child] of Object.entries(value)) {
    const found = findCircularRef(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

function unescapePointer(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment); // URI fragment form; a stray % is just a character
  } catch {}
  return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
}
