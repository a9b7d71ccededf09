import { XMLParser, XMLValidator } from "fast-xml-parser";

/**
 * Reads written e-invoice XML back with an independent parser (fast-xml-parser), as an element tree
 * that keeps document order, for the structure and round-trip tests.
 */
export interface XmlNode {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
  /** The element's own text, whitespace between child elements included. */
  readonly text: string;
}

type Ordered = Record<string, unknown> & { ":@"?: Record<string, string>; "#text"?: string };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Numeric character references (&#39;) are core XML; this parser decodes them only with this option.
  htmlEntities: true,
});

function toNode(item: Ordered): XmlNode {
  const name = Object.keys(item).find((key) => key !== ":@")!;
  const content = item[name] as Ordered[];
  const children: XmlNode[] = [];
  let text = "";
  for (const part of content) {
    if ("#text" in part) text += String(part["#text"]);
    else children.push(toNode(part));
  }
  return { name, attributes: item[":@"] ?? {}, children, text };
}

/** The root element of a well-formed document; throws with the parser's reason otherwise. */
export function parseXml(xml: string): XmlNode {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed: ${valid.err.msg} (line ${valid.err.line})`);
  const items = parser.parse(xml) as Ordered[];
  const root = items.find((item) => !("?xml" in item) && !("#text" in item));
  if (!root) throw new Error("no root element");
  return toNode(root);
}

/** The elements at a `/`-separated path of child names below `node`. */
export function all(node: XmlNode, path: string): XmlNode[] {
  return path
    .split("/")
    .reduce<XmlNode[]>((nodes, step) => nodes.flatMap((n) => n.children.filter((c) => c.name === step)), [node]);
}

/** The one element at `path`; throws when there is none or more than one. */
export function one(node: XmlNode, path: string): XmlNode {
  const found = all(node, path);
  if (found.length !== 1) throw new Error(`${path}: ${found.length} elements, expected one`);
  return found[0]!;
}

/** The text of the element at `path`, or undefined when there is no such element. */
export function textAt(node: XmlNode, path: string): string | undefined {
  const found = all(node, path);
  if (found.length > 1) throw new Error(`${path}: ${found.length} elements, expected at most one`);
  return found[0]?.text;
}

/** Every element of the tree, root first, with its path. */
export function walk(node: XmlNode, path = node.name): Array<{ node: XmlNode; path: string }> {
  return [{ node, path }, ...node.children.flatMap((child) => walk(child, `${path}/${child.name}`))];
}

/** A schema description (test/helpers/einvoice-schemas.ts): complex types as ordered child rules. */
export type Types = Readonly<Record<string, readonly string[]>>;

export interface Schema {
  readonly root: string;
  readonly rootType: string;
  /** The namespace declarations the root must carry, exactly. */
  readonly namespaces: Readonly<Record<string, string>>;
  readonly types: Types;
}

interface ChildRule {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly type?: string;
  readonly attributes: ReadonlyArray<{ readonly name: string; readonly required: boolean }>;
}

function parseRule(rule: string): ChildRule {
  const [name, cardinality, ...rest] = rule.split(" ");
  const [min, max] = cardinality!.split("..");
  const attributes = rest
    .filter((token) => token.startsWith("@"))
    .map((token) => ({ name: token.replace(/^@|\?$/g, ""), required: !token.endsWith("?") }));
  return {
    name: name!,
    min: Number(min),
    max: max === "n" ? Number.POSITIVE_INFINITY : Number(max),
    type: rest.find((token) => !token.startsWith("@")),
    attributes,
  };
}

const parsed = new Map<readonly string[], readonly ChildRule[]>();

function rulesOf(schema: Schema, type: string): readonly ChildRule[] {
  const rules = schema.types[type];
  if (!rules) throw new Error(`schema description has no type ${type}`);
  const known = parsed.get(rules);
  if (known) return known;
  const found = rules.map(parseRule);
  parsed.set(rules, found);
  return found;
}

/** Children against one sequence: order, cardinality, required ones present, nothing unknown. */
function checkSequence(node: XmlNode, rules: readonly ChildRule[], path: string, errors: string[]): void {
  let at = 0;
  let count = 0;
  for (const child of node.children) {
    const index = rules.findIndex((rule, i) => i >= at && rule.name === child.name);
    if (index === -1) {
      const known = rules.some((rule) => rule.name === child.name);
      errors.push(`${path}/${child.name}: ${known ? "out of schema order" : "not allowed here"}`);
      continue;
    }
    for (let skipped = at; skipped < index; skipped++) {
      const rule = rules[skipped]!;
      const seen = skipped === at ? count : 0;
      if (seen < rule.min) errors.push(`${path}: ${rule.name} missing before ${child.name}`);
    }
    count = index === at ? count + 1 : 1;
    at = index;
    if (count > rules[at]!.max) errors.push(`${path}/${child.name}: more than ${rules[at]!.max}`);
  }
  for (let rest = at; rest < rules.length; rest++) {
    const seen = rest === at && node.children.length > 0 ? count : 0;
    if (seen < rules[rest]!.min) errors.push(`${path}: ${rules[rest]!.name} missing`);
  }
}

function checkAttributes(node: XmlNode, rule: ChildRule, path: string, errors: string[]): void {
  for (const attribute of rule.attributes) {
    if (attribute.required && node.attributes[attribute.name] === undefined) {
      errors.push(`${path}: attribute ${attribute.name} missing`);
    }
  }
  for (const [name, value] of Object.entries(node.attributes)) {
    if (!rule.attributes.some((a) => a.name === name)) errors.push(`${path}: attribute ${name} not allowed`);
    else if (value === "") errors.push(`${path}: attribute ${name} empty`);
  }
}

function checkElement(node: XmlNode, rule: ChildRule, schema: Schema, path: string, errors: string[]): void {
  checkAttributes(node, rule, path, errors);
  if (rule.type === undefined) {
    if (node.children.length > 0) errors.push(`${path}: text element with child elements`);
    if (node.text.trim() === "") errors.push(`${path}: empty text element`);
    return;
  }
  const rules = rulesOf(schema, rule.type);
  if (node.text.trim() !== "") errors.push(`${path}: text in an element of type ${rule.type}`);
  if (node.children.length === 0 && rules.length > 0) errors.push(`${path}: empty element`);
  checkSequence(node, rules, path, errors);
  for (const child of node.children) {
    const childRule = rules.find((r) => r.name === child.name);
    if (childRule) checkElement(child, childRule, schema, `${path}/${child.name}`, errors);
  }
}

/** Every way the document departs from the schema description; empty when it conforms. */
export function schemaErrors(xml: string, schema: Schema): string[] {
  const errors: string[] = [];
  if (!xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')) errors.push("no UTF-8 XML declaration");
  const root = parseXml(xml);
  if (root.name !== schema.root) return [...errors, `root is ${root.name}, not ${schema.root}`];
  const declared = Object.fromEntries(Object.entries(root.attributes).filter(([name]) => name.startsWith("xmlns")));
  if (JSON.stringify(declared) !== JSON.stringify(schema.namespaces)) {
    errors.push(`namespaces ${JSON.stringify(declared)}`);
  }
  const prefixes = new Set(Object.keys(schema.namespaces).map((n) => (n === "xmlns" ? "" : n.slice(6))));
  for (const { node, path } of walk(root)) {
    const prefix = node.name.includes(":") ? node.name.split(":")[0]! : "";
    if (!prefixes.has(prefix)) errors.push(`${path}: undeclared prefix "${prefix}"`);
  }
  const rootRule: ChildRule = {
    ...parseRule(`${schema.root} 1..1 ${schema.rootType}`),
    attributes: Object.keys(schema.namespaces).map((name) => ({ name, required: true })),
  };
  checkElement(root, rootRule, schema, root.name, errors);
  return errors;
}
