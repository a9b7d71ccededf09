import { describe, expect, it } from "vitest";
import { catalogue } from "#shared/errors/catalogue.ts";
import { errorDocs } from "#shared/errors/error-doc-entries.ts";
import { docsUrl } from "#shared/errors/error-body.ts";

describe("error docs content", () => {
  it("has one entry per catalogue code, anchored exactly where docsUrl points, in both languages", () => {
    const docs = errorDocs();
    expect(docs.map((d) => d.code)).toEqual(Object.keys(catalogue));
    for (const doc of docs) {
      for (const lang of ["en", "ja"] as const) {
        expect(new URL(docsUrl("https://site.example", doc.code, lang)).hash).toBe(`#${doc.anchor}`);
        expect(doc.when[lang].length, `${doc.code} when/${lang}`).toBeGreaterThan(5);
        expect(doc.todo[lang].length, `${doc.code} todo/${lang}`).toBeGreaterThan(5);
      }
    }
    expect(new Set(docs.map((d) => d.anchor)).size).toBe(docs.length);
  });

  it("writes the Japanese texts in Japanese", () => {
    for (const doc of errorDocs()) expect(doc.todo.ja, doc.code).toMatch(/[\u3040-\u30ff\u4e00-\u9faf]/);
  });
});
