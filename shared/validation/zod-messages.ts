import type * as z from "zod";
import en from "zod/v4/locales/en.js";
import ja from "zod/v4/locales/ja.js";
import type { Bilingual } from "#shared/i18n/texts.ts";
import { validationText } from "./validation-text.ts";

type Issue = z.core.$ZodIssue;

/** zod's own messages in the two languages of the API (see README.md#errors), built once. */
const locales = { en: en().localeError, ja: ja().localeError };

/**
 * The English and Japanese text of one issue. Custom issues (refinements of our own
 * rules) carry their Japanese text in `params.ja`; every other issue is worded by zod's
 * locales, so schemas set no messages of their own. Parse with `reportInput: true`:
 * zod's locales describe the received type from the issue's input.
 */
export function issueText(issue: Issue): Bilingual {
  if (issue.code === "custom") {
    const ja = (issue.params as { ja?: string } | undefined)?.ja;
    return { en: issue.message, ja: ja ?? issue.message };
  }
  // zod says "expected string, received undefined" for a missing key; people say it is required.
  if (issue.code === "invalid_type" && issue.input === undefined) return validationText.required;
  return { en: localized("en", issue), ja: localized("ja", issue) };
}

function localized(lang: keyof typeof locales, issue: Issue): string {
  const out = locales[lang](issue as never);
  if (typeof out === "string") return out;
  return out?.message ?? issue.message;
}
