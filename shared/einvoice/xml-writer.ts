/**
 * A small element builder for the e-invoice writers (`cii.ts`, `ubl.ts`): build a tree in schema
 * order, let missing optional values vanish, then write it in one pass. Text and attribute values
 * go through the project's one escaper (`escapeHtml`), whose five references are XML's too.
 */
import { escapeHtml } from "#shared/html/html.ts";

/** An element: either text content or child elements (none makes `<name/>`). */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string | undefined>>;
  readonly text?: string;
  readonly children: readonly XmlElement[];
}

/** What may stand where a child goes: missing values and `false` write nothing, arrays are flattened. */
export type XmlContent = XmlElement | undefined | false | readonly XmlContent[];

type Attributes = Readonly<Record<string, string | undefined>>;

/** Shared by every element without attributes or children: a 2,000-line invoice has ~50,000 elements. */
const NO_ATTRIBUTES: Attributes = Object.freeze({});
const NO_CHILDREN: readonly XmlElement[] = Object.freeze([]);

function flatten(content: readonly XmlContent[], into: XmlElement[] = []): XmlElement[] {
  for (const item of content) {
    if (Array.isArray(item)) flatten(item, into);
    else if (item) into.push(item as XmlElement);
  }
  return into;
}

/** An element with children; absent (writes nothing) when none of them is present. */
export function el(
  name: string,
  content: readonly XmlContent[],
  attributes: Attributes = NO_ATTRIBUTES,
): XmlElement | undefined {
  const children = flatten(content);
  return children.length === 0 ? undefined : { name, attributes, children };
}

/** An element the schema requires even when it has nothing to say (written `<name/>` then). */
export function requiredEl(
  name: string,
  content: readonly XmlContent[],
  attributes: Attributes = NO_ATTRIBUTES,
): XmlElement {
  return { name, attributes, children: flatten(content) };
}

/** A text element; absent when the text is missing or empty, so no empty optional element is written. */
export function leaf(
  name: string,
  text: string | undefined,
  attributes: Attributes = NO_ATTRIBUTES,
): XmlElement | undefined {
  return text === undefined || text === "" ? undefined : { name, attributes, text, children: NO_CHILDREN };
}

/**
 * Characters XML 1.0 cannot carry even as references: C0 controls other than tab, LF and CR,
 * U+FFFE/U+FFFF and unpaired surrogates. They become U+FFFD so the document stays well-formed.
 */
const NOT_XML_CHARACTER =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML cannot carry
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as XML content or a double-quoted attribute value. */
export function xmlText(value: string): string {
  return escapeHtml(value.replace(NOT_XML_CHARACTER, "\uFFFD"));
}

const indents: string[] = [];
const indent = (depth: number) => (indents[depth] ??= "  ".repeat(depth));

function writeAttributes(attributes: Attributes): string {
  let out = "";
  for (const name in attributes) {
    const value = attributes[name];
    if (value !== undefined) out += ` ${name}="${xmlText(value)}"`;
  }
  return out;
}

/** `out` with the element appended; V8 joins strings as ropes, so appending stays linear. */
function writeElement(node: XmlElement, depth: number, out: string): string {
  const open = `${indent(depth)}<${node.name}${writeAttributes(node.attributes)}`;
  if (node.text !== undefined) return `${out}${open}>${xmlText(node.text)}</${node.name}>\n`;
  if (node.children.length === 0) return `${out}${open}/>\n`;
  let result = `${out}${open}>\n`;
  for (const child of node.children) result = writeElement(child, depth + 1, result);
  return `${result}${indent(depth)}</${node.name}>\n`;
}

/**
 * The document as text with its UTF-8 declaration, indented two spaces, in one pass over the tree
 * (a 10,000-line invoice costs no more per line than a short one); the same tree gives the same bytes.
 */
export function writeXmlDocument(root: XmlElement): string {
  return writeElement(root, 0, '<?xml version="1.0" encoding="UTF-8"?>\n');
}

/** An amount with exactly the currency's minor digits (`12.50`, `1000` for JPY); never `-0.00`. */
export function formatAmount(value: number, minorDigits: number): string {
  const text = value.toFixed(minorDigits);
  return /^-0(?:\.0*)?$/.test(text) ? text.slice(1) : text;
}

/**
 * A price, quantity or rate with the decimals it has and no binary noise: 15 significant digits,
 * trailing zeros dropped (`0.1 + 0.2` → `0.3`, `19` → `19`, `0.3334` → `0.3334`), never exponent notation.
 */
export function formatDecimal(value: number): string {
  const clean = Number(value.toPrecision(15));
  if (clean === 0) return "0";
  const text = String(clean);
  if (!text.includes("e")) return text;
  if (Math.abs(clean) >= 1e21) return BigInt(clean).toString();
  const decimals = Math.min(100, 14 - Math.floor(Math.log10(Math.abs(clean))));
  return clean.toFixed(decimals).replace(/\.?0+$/, "");
}

/** A `YYYY-MM-DD` date as CII's format 102 (`YYYYMMDD`). */
export function formatDate102(isoDate: string): string {
  return isoDate.replaceAll("-", "");
}

/**
 * A value the syntax cannot do without. The writers take invoices that passed the EN 16931 checks,
 * which require all of these, so a missing one is a caller's mistake, not a customer's.
 */
export function required<T>(value: T | undefined, term: string): T {
  if (value === undefined || value === "") {
    throw new Error(`${term} is missing: the e-invoice writers take only checked invoices`);
  }
  return value;
}
