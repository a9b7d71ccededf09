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
