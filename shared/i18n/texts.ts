/**
 * One text in both of Platen's languages (`Language` of `shared/errors/language.ts`). Every
 * table of texts is a record of these: the site's strings, the auth screens' words and the
 * error catalogue's messages. The two languages of a text sit side by side, so a reader
 * sees both at once and {@link fill} checks the placeholders of both.
 */
export interface Bilingual {
  readonly en: string;
  readonly ja: string;
}

/** A table of texts: one {@link Bilingual} per key. */
export type TextTable = Record<string, Bilingual>;

/** One language of a table: the same keys, each text in that language. */
export type InLanguage<T extends TextTable> = { readonly [K in keyof T]: T[K]["en"] | T[K]["ja"] };

/** The texts of a table in one language. */
export function inLanguage<T extends TextTable>(table: T, lang: keyof Bilingual): InLanguage<T> {
  return Object.fromEntries(Object.entries(table).map(([key, text]) => [key, text[lang]])) as InLanguage<T>;
}

/** Both languages of a table, picked once (a page asks for its language's texts on every request). */
export function byLanguage<T extends TextTable>(table: T): Record<keyof Bilingual, InLanguage<T>> {
  return { en: inLanguage(table, "en"), ja: inLanguage(table, "ja") };
}

/** The `{name}` placeholders of a text known at compile time (none for a plain `string`). */
export type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The values a text needs: one per placeholder, in either language of it. */
export type FillVars<T extends string> = { readonly [Name in Placeholders<T>]: string | number };

/**
 * Fills `{name}` placeholders. For a text of a table the compiler asks for exactly its
 * placeholders; a name without a value stays visible rather than vanish.
 */
export function fill<T extends string>(text: T, vars: FillVars<T>): string {
  const values: Record<string, string | number> = vars;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The values of {@link fillBoth}: one per placeholder, a {@link Bilingual} one filling each language with its own. */
export type BothVars<T extends string> = { readonly [Name in Placeholders<T>]: string | number | Bilingual };

/**
 * Fills both languages of a text, for what carries a {@link Bilingual} on (an error's
 * details). For a text of an `as const` table the compiler asks for the placeholders of both.
 */
export function fillBoth<En extends string, Ja extends string>(
  text: { readonly en: En; readonly ja: Ja },
  vars: BothVars<En> & BothVars<Ja>,
): Bilingual {
  const values: Record<string, string | number | Bilingual> = vars;
  const pick = (lang: keyof Bilingual) =>
    Object.fromEntries(Object.entries(values).map(([name, v]) => [name, typeof v === "object" ? v[lang] : v]));
  return { en: fill<string>(text.en, pick("en")), ja: fill<string>(text.ja, pick("ja")) };
}
