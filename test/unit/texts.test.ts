import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { accessText } from "#shared/auth/access-text.ts";
import { authoringText } from "#shared/authoring/authoring-text.ts";
import { designDetailText } from "#shared/designs/design-detail-text.ts";
import { catalogue } from "#shared/errors/catalogue.ts";
import { requestText } from "#shared/generation/requests/request-text.ts";
import { httpText } from "#shared/http/http-text.ts";
import { type Bilingual, byLanguage, fill, fillBoth } from "#shared/i18n/texts.ts";
import { limitsText } from "#shared/limits/limits-text.ts";
import { validationText } from "#shared/validation/validation-text.ts";
import { webhookText } from "#shared/webhooks/webhook-text.ts";
import { rotationText } from "#shared/workspaces/app-key-rotation.ts";
import { designApiText } from "../../functions/api/design-api-text.ts";
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

describe("the texts of error details", () => {
  const tables: Record<string, Record<string, Bilingual>> = {
    access: accessText,
    authoring: authoringText,
    "design API": designApiText,
    designs: designDetailText,
    "generation requests": requestText,
    "HTTP edge": httpText,
    limits: limitsText,
    validation: validationText,
    webhooks: webhookText,
    "app-key rotation": rotationText,
  };

  it.each(Object.keys(tables))("%s: both languages have every text, with the same placeholders", (name) => {
    for (const [key, text] of Object.entries(tables[name]!)) {
      expect(text.en, key).not.toBe("");
      expect(text.ja, key).not.toBe("");
      // A runtime's or library's English `{reason}` is the one fill a Japanese text may leave out.
      const ja = placeholders(text.ja);
      expect(ja, key).toEqual(placeholders(text.en).filter((p) => p !== "reason" || ja.includes("reason")));
    }
  });

  it("fillBoth fills each language, a Bilingual value with its own language", () => {
    const text = { en: "{n} of {what}", ja: "{what}の {n}" } as const;
    expect(fillBoth(text, { n: 3, what: { en: "pages", ja: "ページ" } })).toEqual({
      en: "3 of pages",
      ja: "ページの 3",
    });
  });

  it("the code words details with one Bilingual text: no message/messageJa pair outside the draft warnings' wire form", () => {
    const root = join(import.meta.dirname, "../..");
    const sources = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() && e.name !== "node_modules"
          ? sources(join(dir, e.name))
          : e.name.endsWith(".ts")
            ? [join(dir, e.name)]
            : [],
      );
    const pairs = ["shared", "functions", "infra"]
      .flatMap(sources)
      .filter((file) => readFileSync(join(root, file), "utf8").includes("messageJa"));
    // The draft's warnings answer both languages under these names, which clients read (problemAnswer).
    expect(pairs).toEqual([join("shared", "authoring", "bundle-problems.ts")]);
  });
});
