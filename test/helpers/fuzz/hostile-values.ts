import fc from "fast-check";

/**
 * Values a careless or hostile client sends, as fast-check arbitraries: text with control
 * characters and lone surrogates, very long text, numbers at the edges of what JSON and
 * JavaScript agree on, values of every JSON type, deep nesting. Bodies are JSON trees that
 * may hold `RawJson` leaves, written as they are (`1e400`, a depth no serializer would build).
 */

/** A piece of JSON text written verbatim into a body: what `JSON.stringify` cannot produce. */
export class RawJson {
  constructor(readonly text: string) {}
}

export type FuzzJson = null | boolean | number | string | RawJson | FuzzJson[] | { [key: string]: FuzzJson };

/** JSON text of a tree; `JSON.stringify` writes a lone surrogate as its `\ud800` escape, as a client would. */
export function toJsonText(value: FuzzJson | undefined): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * A copy of a tree (RawJson leaves kept as they are). fast-check hands out the same instance of a
 * constant (`[]`, `{}`) to every case: a mutation must insert a copy, or it would change later
 * cases and could put an object inside itself.
 */
export function cloneFuzz<T extends FuzzJson | undefined>(value: T): T {
  if (value instanceof RawJson || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(cloneFuzz) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneFuzz(v)])) as T;
}

/** One UTF-16 unit or short sequence that is known to break text handling somewhere. */
const nastyUnit = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "\u007f",
      "\u0085",
      "\u00a0",
      "\u2028",
      "\u2029",
      "\u200b",
      "\u202e",
      "\ufeff",
      "\ufffd",
      "\uffff",
      "😀",
      "👩‍👩‍👧",
      "請求",
      "ｱ",
      "é",
      "e\u0301",
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '"',
      "\\",
      "'",
      "%",
      "%00",
      "%ZZ",
      "/",
      "..",
      "\\u0000",
      "{{",
      "}}",
      "{%",
      "<",
      ">",
      "&",
    ),
  },
);

/** Short text made of hostile units (a few characters to a few dozen). */
export const nastyText = fc.string({ unit: nastyUnit, maxLength: 24 });

/** Text far over any field's limit: up to just over 1 MB (params' own limit is 1,000,000 bytes). */
export const longText = fc
  .tuple(fc.constantFrom(300, 5_000, 70_000, 1_000_001), fc.constantFrom("a", "あ", "\u0000", "😀", "x\ud800"))
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));

export const fuzzString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: nastyText },
  { weight: 1, arbitrary: longText },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "null", "undefined", "NaN", "true", "0", "-1", "[]", "{}") },
);

/** Numbers at the edges: what JSON can carry and JavaScript reads differently, or not at all. */
export const edgeNumber: fc.Arbitrary<number | RawJson> = fc.oneof(
  fc.constantFrom(1e308, -1e308, -0, 2 ** 53 + 1, -(2 ** 53) - 1, 5e-324, 2 ** 31, -(2 ** 31) - 1, 0, -1, 1.5, 0.1),
  fc.constantFrom(
    new RawJson("1e400"),
    new RawJson("-1e400"),
    new RawJson("1e-400"),
    new RawJson("-0.0"),
    new RawJson("123456789012345678901234567890"),
    new RawJson("1E+2"),
    new RawJson("0.0000000000000000000000000000001"),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Nesting far deeper than any body needs (arrays or objects), written as raw text. */
export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(64, 2_000, 100_000), fc.boolean())
  .map(([depth, objects]) =>
    objects
      ? new RawJson(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)
      : new RawJson(`${"[".repeat(depth)}${"]".repeat(depth)}`),
  );

/** Any JSON value, small, with hostile leaves. */
export const fuzzJson: fc.Arbitrary<FuzzJson> = fc.letrec<{ value: FuzzJson }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 3, arbitrary: fc.constantFrom<FuzzJson>(null, true, false, 0, "", [], {}) },
    { weight: 3, arbitrary: fuzzString },
    { weight: 2, arbitrary: edgeNumber },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fuzzString, tie("value"), { maxKeys: 4 }) },
  ),
})).value;

/** A value of another type than `like` (what a client with a wrong schema sends). */
export function wrongType(like: unknown): fc.Arbitrary<FuzzJson> {
  const all: fc.Arbitrary<FuzzJson>[] = [
    fc.constant(null),
    fc.boolean(),
    edgeNumber,
    fuzzString,
    fc.array(fuzzJson, { maxLength: 3 }),
    fc.dictionary(fuzzString, fuzzJson, { maxKeys: 3 }),
  ];
  const kind = like === null ? 0 : typeof like === "boolean" ? 1 : typeof like === "number" ? 2 : 3;
  return fc.oneof(...all.filter((_, i) => i !== kind || Array.isArray(like)));
}

/** Bodies that are not JSON at all, or JSON with something wrong in its text. */
export const notJsonText: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "{",
    "}",
    "{'designId': 1}",
    '{"a":1,}',
    '{"a":1}{"b":2}',
    '{"a":1} trailing',
    "/* comment */ {}",
    "\ufeff{}",
    "NaN",
    "Infinity",
    "undefined",
    '{"a": NaN}',
    '{"a": -Infinity}',
    '{"a": 0x10}',
    '{"a": .5}',
    '{"a": 01}',
    '{"a": "\\x41"}',
    '{"a": "\\ud800"}',
    '{"\\udfff": 1}',
    '{"a": "unterminated}',
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    "designId=x&version=1",
    "<xml/>",
    "null",
    "[]",
    '"text"',
    "42",
  ),
  nastyText,
  fc.uint8Array({ minLength: 1, maxLength: 64 }),
  fc.constantFrom(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
);

/** Content types a client sends by mistake, or on purpose. */
export const oddContentType = fc.constantFrom(
  undefined,
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json; charset=iso-8859-1",
  "application/zip",
  "application/octet-stream",
  "APPLICATION/JSON",
  "application/json;;",
  "*/*",
  "",
);

/** Path or query text: hostile, percent-encoded by hand so malformed escapes reach the server as sent. */
export const hostileSegment = fc.oneof(
  fc.constantFrom(
    "%",
    "%zz",
    "%ED%A0%80",
    "%C0%AF",
    "%00",
    "%0A",
    "%2F",
    "..%2F..%2Fetc",
    "%E3%81%82",
    "undefined",
    "null",
    "0",
    "-1",
    "1e308",
    "9007199254740993",
    "__proto__",
    "constructor",
    "a".repeat(2_000),
  ),
  nastyText.map((s) => encodeSegment(s)),
);

/** Percent-encodes text as UTF-16 units would be written by a sloppy client: lone surrogates as their 3 bytes. */
export function encodeSegment(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out +=
        `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    } else out += encodeURIComponent(ch);
  }
  return out;
}
