import fc from "fast-check";
import {
  cloneFuzz,
  deepNesting,
  edgeNumber,
  encodeSegment,
  type FuzzJson,
  fuzzJson,
  fuzzString,
  hostileSegment,
  nastyText,
  notJsonText,
  oddContentType,
  RawJson,
  toJsonText,
  wrongType,
} from "./hostile-values.ts";
import type { FuzzOperation } from "./served-operations.ts";

/**
 * One generated request per case: a caller, the path ids (this workspace's, another's, unknown
 * or hostile), query values, a body (the operation's example body mutated, another JSON value,
 * or bytes that are not JSON) with a content type, the language asked for and, now and then, a
 * request head over the gateway's limit.
 */

/** Who sends a request: the headers it adds. */
export interface FuzzCaller {
  name: string;
  headers: Record<string, string>;
}

/** What the suite knows of its two workspaces: ids to aim at and who may call. */
export interface FuzzTargets {
  /** Callers allowed by the operation's family (the fuzzed workspace's). */
  callers(op: FuzzOperation): FuzzCaller[];
  /** Callers that should be refused, or that belong to the other workspace. */
  strangers(op: FuzzOperation): FuzzCaller[];
  /** A valid id of the fuzzed workspace for a path parameter (or body field) of this name. */
  own(op: FuzzOperation, name: string): string;
  /** The same kind of id in the other workspace. */
  foreign(op: FuzzOperation, name: string): string;
  /** The body the operation would accept, built from its example with the ids replaced. */
  baseline(op: FuzzOperation): unknown;
  /** Operations whose valid requests render (Chromium): their valid cases are kept rare. */
  renders(op: FuzzOperation): boolean;
}

export type IdChoice = { kind: "own" | "foreign" | "unknown" } | { kind: "hostile"; raw: string };

export type FuzzBody =
  | { kind: "none" }
  | { kind: "json"; value: FuzzJson | undefined; mutations: string[] }
  | { kind: "raw"; text: string | Uint8Array; note: string };

export interface FuzzCase {
  caller: { stranger: boolean; index: number };
  ids: Record<string, IdChoice>;
  query: Record<string, string | undefined>;
  body: FuzzBody;
  contentType: string | undefined;
  /** The Accept-Language header sent (undefined: none). */
  acceptLanguage: string | undefined;
  hugeHeader: boolean;
  extraHeaders: Record<string, string>;
}

const UNKNOWN_ID = "Zz9Zz9Zz9Zz9Zz9Z";

const idChoice: fc.Arbitrary<IdChoice> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: "own" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "foreign" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "unknown" as const }) },
  { weight: 2, arbitrary: hostileSegment.map((raw) => ({ kind: "hostile" as const, raw })) },
);

const queryValue = (q: FuzzOperation["query"][number]): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(q.example) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: q.values.length ? fc.constantFrom(...q.values) : fc.constant(q.example) },
    { weight: 2, arbitrary: hostileSegment },
    {
      weight: 2,
      arbitrary: fc.constantFrom("0", "-0", "-1", "1.5", "1e308", "1e400", "9007199254740993", "0x10", "NaN", ""),
    },
  );

const acceptLanguage = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constant("ja") },
  { weight: 1, arbitrary: fc.constantFrom("ja-JP,en;q=0.5", "en-US,ja;q=0.9", "ja;q=0, en", "*", "xx;q=abc") },
);

/** Paths to every value of a JSON tree (the root is `[]`), objects and arrays included. */
function pathsOf(value: FuzzJson | undefined, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (value instanceof RawJson || value === null || typeof value !== "object") return out;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) pathsOf(v, [...at, i], out);
  } else for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

function getAt(value: FuzzJson | undefined, path: (string | number)[]): FuzzJson | undefined {
  let cur = value;
  for (const key of path) cur = (cur as Record<string | number, FuzzJson>)?.[key];
  return cur;
}

type Mutation =
  | { op: "drop"; at: number }
  | { op: "replace"; at: number; pick: number; values: FuzzJson[] }
  | { op: "extra"; at: number; key: string; value: FuzzJson }
  | { op: "many"; at: number; count: number };

/** Applies one mutation to a tree in place (the root replaced when the mutation aims at it); returns a note. */
function apply(root: { v: FuzzJson | undefined }, m: Mutation): string {
  const paths = pathsOf(root.v);
  const path = paths[m.at % paths.length]!;
  const where = path.join(".") || "(body)";
  const parentPath = path.slice(0, -1);
  const key = path[path.length - 1];
  const set = (value: FuzzJson | undefined) => {
    if (key === undefined) root.v = value;
    else (getAt(root.v, parentPath) as Record<string | number, FuzzJson | undefined>)[key] = value;
  };
  const current = getAt(root.v, path);
  switch (m.op) {
    case "drop": {
      if (key === undefined) {
        root.v = undefined;
        return "empty body";
      }
      const parent = getAt(root.v, parentPath);
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete (parent as Record<string, FuzzJson>)[key];
      return `drop ${where}`;
    }
    case "replace": {
      set(cloneFuzz(m.values[m.pick % m.values.length]));
      return `replace ${where}`;
    }
    case "extra": {
      if (current === null || typeof current !== "object" || current instanceof RawJson || Array.isArray(current)) {
        set(cloneFuzz(m.value));
        return `replace ${where}`;
      }
      // defineProperty: a key "__proto__" is a key of the body, not the object's prototype.
      Object.defineProperty(current, m.key, {
        value: cloneFuzz(m.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return `extra ${where}.${m.key.slice(0, 20)}`;
    }
    case "many": {
      if (!Array.isArray(current) || current.length === 0) return "none";
      set(Array.from({ length: m.count }, () => cloneFuzz(current[0]!)));
      return `${m.count} × ${where}`;
    }
  }
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("drop" as const), at: fc.nat() }) },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("replace" as const),
      at: fc.nat(),
      pick: fc.nat(),
      // Several candidates so the wrong type can be chosen once the target is known.
      values: fc.tuple(
        wrongType("text"),
        wrongType(0),
        wrongType({}),
        fuzzJson,
        fuzzString,
        edgeNumber as fc.Arbitrary<FuzzJson>,
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("extra" as const),
      at: fc.nat(),
      key: fc.oneof(nastyText, fc.constantFrom("__proto__", "constructor", "toString", "workspaceId", "")),
      value: fuzzJson,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("many" as const), at: fc.nat(), count: fc.constantFrom(2, 101, 1_000) }),
  },
);

function mutatedBody(baseline: unknown): fc.Arbitrary<FuzzBody> {
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => {
    const root = { v: structuredClone(baseline) as FuzzJson | undefined };
    const notes = ms.map((m) => apply(root, m));
    return { kind: "json" as const, value: root.v, mutations: notes };
  });
}

/** The body arbitrary of an operation: mostly refusals, a few valid requests (rarer where they render). */
function bodyOf(op: FuzzOperation, targets: FuzzTargets): fc.Arbitrary<{ body: FuzzBody; contentType?: string }> {
  const json = "application/json";
  if (!op.acceptsJson && !op.acceptsZip) {
    // Operations without a body; DELETE and POST may still be sent one (fetch refuses one on GET).
    if (op.method === "GET") return fc.constant({ body: { kind: "none" } });
    return fc.oneof(
      { weight: 5, arbitrary: fc.constant({ body: { kind: "none" as const } }) },
      { weight: 1, arbitrary: fuzzJson.map((v) => ({ body: jsonBody(v, "a JSON body"), contentType: json })) },
      { weight: 1, arbitrary: notJsonText.map((t) => ({ body: rawBody(t), contentType: json })) },
    );
  }
  const baseline = targets.baseline(op);
  const valid = targets.renders(op) ? 1 : 4;
  const arbs: fc.WeightedArbitrary<{ body: FuzzBody; contentType?: string }>[] = [
    { weight: valid, arbitrary: fc.constant({ body: jsonBody(baseline, "the example body"), contentType: json }) },
    { weight: 14, arbitrary: mutatedBody(baseline).map((body) => ({ body, contentType: json })) },
    { weight: 2, arbitrary: fuzzJson.map((v) => ({ body: jsonBody(v, "another JSON value"), contentType: json })) },
    { weight: 2, arbitrary: deepNesting.map((v) => ({ body: jsonBody(v, "deep nesting"), contentType: json })) },
    { weight: 3, arbitrary: notJsonText.map((t) => ({ body: rawBody(t), contentType: json })) },
    {
      weight: 2,
      arbitrary: oddContentType.map((contentType) => ({
        body: jsonBody(baseline, "the example body, another content type"),
        contentType,
      })),
    },
  ];
  if (op.acceptsZip) {
    arbs.push({
      weight: 2,
      arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes) => ({
        body: { kind: "raw" as const, text: zipLike(bytes), note: "bytes that are not a zip" },
        contentType: "application/zip",
      })),
    });
  }
  return fc.oneof(...arbs);
}

const jsonBody = (value: unknown, note: string): FuzzBody => ({
  kind: "json",
  value: cloneFuzz(value as FuzzJson),
  mutations: [note],
});
const rawBody = (text: string | Uint8Array): FuzzBody => ({ kind: "raw", text, note: "not JSON" });

/** Bytes that start like a zip (a local file header) half the time, so the reader gets past its first check. */
const zipLike = (bytes: Uint8Array) =>
  bytes.length % 2 ? Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), bytes]) : bytes;

/** The arbitrary of one request to `op`. */
export function fuzzCase(op: FuzzOperation, targets: FuzzTargets): fc.Arbitrary<FuzzCase> {
  const callers = targets.callers(op);
  const strangers = targets.strangers(op);
  return fc
    .record({
      caller: fc.oneof(
        { weight: 9, arbitrary: fc.nat({ max: callers.length - 1 }).map((index) => ({ stranger: false, index })) },
        { weight: 1, arbitrary: fc.nat({ max: strangers.length - 1 }).map((index) => ({ stranger: true, index })) },
      ),
      ids: fc.record(Object.fromEntries(op.pathParams.map((p) => [p, idChoice]))),
      query: fc.record(
        Object.fromEntries(
          // The example's version is the example design's; this workspace's designs have their own.
          op.query.map((q) => [
            q.name,
            queryValue(q.name === "version" ? { ...q, example: targets.own(op, "version") } : q),
          ]),
        ),
      ),
      payload: bodyOf(op, targets),
      acceptLanguage,
      hugeHeader: fc.nat({ max: 39 }).map((n) => n === 0),
      extraHeaders: fc.oneof(
        { weight: 8, arbitrary: fc.constant({}) },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom("Idempotency-Key", "X-Workspace-Id", "X-Request-Id")
            .chain((name) =>
              fc
                .oneof(
                  fc.constantFrom("", " ", "a".repeat(300), "../x", "\t", "0"),
                  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
                )
                .map((value) => ({ [name]: value })),
            ),
        },
      ),
    })
    .map(({ payload, ...rest }) => ({ ...rest, body: payload.body, contentType: payload.contentType }));
}

/** What the suite sent: the URL, headers and body bytes of a case. */
export interface BuiltRequest {
  url: string;
  init: RequestInit & { headers: Record<string, string> };
  caller: FuzzCaller;
  /** Path ids as sent (decoded when they were ids of the suite). */
  ids: Record<string, string>;
}

export function buildRequest(baseUrl: string, op: FuzzOperation, c: FuzzCase, targets: FuzzTargets): BuiltRequest {
  const ids: Record<string, string> = {};
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const choice = c.ids[name]!;
    const value =
      choice.kind === "hostile"
        ? choice.raw
        : choice.kind === "own"
          ? targets.own(op, name)
          : choice.kind === "foreign"
            ? targets.foreign(op, name)
            : name === "version"
              ? "987654"
              : UNKNOWN_ID;
    ids[name] = value;
    return choice.kind === "hostile" ? value : encodeSegment(value);
  });
  const query = Object.entries(c.query)
    .filter(([, v]) => v !== undefined)
    // Hostile values come percent-encoded already (malformed escapes on purpose); the others are plain.
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const caller = (c.caller.stranger ? targets.strangers(op) : targets.callers(op))[c.caller.index]!;
  const headers: Record<string, string> = { ...caller.headers, ...c.extraHeaders };
  if (c.acceptLanguage !== undefined) headers["accept-language"] = c.acceptLanguage;
  if (c.hugeHeader) headers["x-filler"] = "f".repeat(17 * 1024);
  if (c.contentType !== undefined && c.body.kind !== "none") headers["content-type"] = c.contentType;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (c.body.kind === "json") body = c.body.value === undefined ? "" : toJsonText(c.body.value);
  else if (c.body.kind === "raw") body = typeof c.body.text === "string" ? c.body.text : new Uint8Array(c.body.text);
  return {
    url: `${baseUrl}${path}${query ? `?${query}` : ""}`,
    init: { method: op.method, headers, ...(body !== undefined && { body }) },
    caller,
    ids,
  };
}

/** A case in a line for a failure message (bodies cut short: some are a megabyte). */
export function describeCase(op: FuzzOperation, c: FuzzCase, built: BuiltRequest): string {
  const body =
    c.body.kind === "json"
      ? `${c.body.mutations.join(", ")}: ${toJsonText(c.body.value ?? null).slice(0, 300)}`
      : c.body.kind === "raw"
        ? `${c.body.note}: ${Buffer.from(c.body.text).toString("utf8").slice(0, 120)}`
        : "no body";
  return `${op.method} ${built.url.slice(0, 300)} as ${built.caller.name}, content-type ${c.contentType}, lang ${c.acceptLanguage}, huge head ${c.hugeHeader}, headers ${JSON.stringify(c.extraHeaders).slice(0, 100)}; body ${body}`;
}
