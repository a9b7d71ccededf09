declare const safe: unique symbol;

/**
 * Escaped HTML by construction: every value interpolated into {@link html} is escaped
 * unless it is itself an {@link Html} fragment, so user data (file names, passthrough,
 * e-mail addresses, client names) can never become markup. The private brand keeps a
 * plain `{ text }` object from passing for a fragment.
 */
export class Html {
  declare private readonly [safe]: true;
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/**
 * How the five special characters are spelled. The site writes named references; the
 * auth screens, the provider's error page and the PDF title keep the numeric ones their
 * tests pin (`test/unit/identity.test.ts`, `test/render/template.test.ts`).
 */
export type EntitySpelling = "named" | "numeric";

const NAMED: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const numeric = (c: string) => `&#${c.charCodeAt(0)};`;

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(value: string, spelling: EntitySpelling = "named"): string {
  return value.replace(/[&<>"']/g, spelling === "named" ? (c) => NAMED[c]! : numeric);
}

/** What a template may interpolate: fragments pass through, arrays are joined, nothing-values vanish. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue, spelling: EntitySpelling): string {
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v, spelling)).join("");
  if (value instanceof Html) return value.text;
  return escapeHtml(String(value), spelling);
}

type HtmlTag = (strings: TemplateStringsArray, ...values: HtmlValue[]) => Html;

/** A template tag that escapes with the given spelling; {@link html} is the site's. */
export function htmlTag(spelling: EntitySpelling): HtmlTag {
  return (strings, ...values) => {
    let out = strings[0]!;
    values.forEach((value, i) => {
      out += render(value, spelling) + strings[i + 1]!;
    });
    return new Html(out);
  };
}

/** Tagged template producing an {@link Html} fragment, values escaped with named references. */
export const html: HtmlTag = htmlTag("named");
