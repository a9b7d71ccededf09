/**
 * lib-dynamodb's key-node maps say which parts of a command's input or output hold
 * attribute values: `null` the node itself, `{}` every value of an object (or every item
 * of an array), `{ "*": n }` every member with map `n`, otherwise the named keys.
 */
export type KeyNodes = { [key: string]: KeyNodes } | null;

/**
 * Applies `convert` to the attribute values `nodes` points at, copying everything else
 * (the same walk lib-dynamodb's marshalling middleware does; functions are dropped).
 */
export function mapKeyNodes(obj: Record<string, unknown>, convert: (value: unknown) => unknown, nodes: KeyNodes): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (typeof v !== "function") copy[k] = v;
  for (const [key, child] of Object.entries(nodes ?? {})) {
    const converted = mapNode(obj[key], convert, child);
    if (converted !== undefined) copy[key] = converted;
  }
  return copy;
}

function mapNode(value: unknown, convert: (value: unknown) => unknown, nodes: KeyNodes): unknown {
  if (value === undefined || typeof value === "function") return undefined;
  if (nodes === null) return convert(value);
  const keys = Object.keys(nodes);
  if (keys.length === 0) return mapAll(value, (v) => mapNode(v, convert, null));
  if (keys.length === 1 && keys[0] === "*") return mapAll(value, (v) => mapNode(v, convert, nodes["*"]!));
  return Array.isArray(value)
    ? value.filter((v) => typeof v !== "function")
    : mapKeyNodes(value as Record<string, unknown>, convert, nodes);
}

function mapAll(value: unknown, map: (v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => typeof v !== "function").map(map);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const mapped = map(v);
    if (mapped !== undefined) out[k] = mapped;
  }
  return out;
}
