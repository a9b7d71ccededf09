import { describe, expect, it } from "vitest";
import { catalogue } from "#shared/errors/catalogue.ts";
import { type Bilingual, byLanguage, fill } from "#shared/i18n/texts.ts";
import { screenText } from "#shared/identity/screen-text.ts";
import { apiDocsText } from "../../functions/site/pages/api-docs-text.ts";
import { t } from "../../functions/site/strings.ts";
import { studioText } from "../../functions/site/studio/studio-text.ts";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Each text of a table in both languages, by key. */
function pairs(en: Record<string, unknown>, ja: Record<string, unknown>): [string, Bilingual][] {
  return Object.keys(en).flatMap((key): [string, Bilingual][] => {
    const [e, j] = [en[key], ja[key]];
    if (typeof e === "string") return [[key, { en: e, ja: String(j) }]];
    return pairs(e as Record<string, unknown>, j as Record<string, unknown>).map(([k, v]) => [`${key}.${k}`, v]);
  });
}

describe("en/ja texts", () => {
  const tables: Record<string, [string, Bilingual][]> = {
    site: pairs(t("en"), t("ja")),
    "API reference": pairs(apiDocsText("en"), apiDocsText("ja")),
    "design studio": pairs(studioText("en"), studioText("ja")),
    "auth screens": pairs(screenText.en, screenText.ja),
    "error catalogue": Object.entries(catalogue),
  };

  it.each(Object.keys(tables))("%s: both languages have every text, with the same placeholders", (name) => {
    const texts = tables[name]!;
    expect(texts.length).toBeGreaterThan(10);
    for (const [key, text] of texts) {
      expect(text.ja, key).not.toBe("");
      expect(placeholders(text.ja), key).toEqual(placeholders(text.en));
    }
  });

  it("fill() fills every placeholder it has a value for and leaves the others visible", () => {
    expect(fill("{n} of {limit}", { n: 3, limit: "10" })).toBe("3 of 10");
    expect(fill<string>("a {x} b {y}", { x: 1 })).toBe("a 1 b {y}");
    expect(byLanguage({ k: { en: "{a} days", ja: "{a} 日" } }).ja.k).toBe("{a} 日");
  });
});
