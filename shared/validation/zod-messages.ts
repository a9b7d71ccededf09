import type * as z from "zod";
import en from "zod/v4/locales/en.js";
import ja from "zod/v4/locales/ja.js";

type Issue = z.core.$ZodIssue;

/** zod's own messages in the two languages of the API (see README.md#errors), built once. */
const locales = { en: en().localeError, ja: ja().localeError };

/** zod says "expected string, received undefined" for a missing key; people say it is required. */
const REQUIRED = { message: "is required", messageJa: "必須です" };

/**
 * The English and Japanese message of one issue. Custom issues (refinements of our own
 * rules) carry their Japanese text in `params.ja`; every other issue is worded by zod's
 * locales, so schemas set no messages of their own. Parse with `reportInput: true`:
 * zod's locales describe the received type from the issue's input.
 */
export function issueMessages(issue: Issue): { message: string; messageJa: string } {
  if (issue.code === "custom") {
    const messageJa = (issue.params as { ja?: string } | undefined)?.ja;
    return { message: issue.message, messageJa: messageJa ?? issue.message };
  }
  if (issue.code === "invalid_type" && issue.input === undefined) return REQUIRED;
  return { message: localized("en", issue), messageJa: localized("ja", issue) };
}

function localized(lang: keyof typeof locales, issue: Issue): string {
  const out = locales[lang](issue as never);
  if (typeof out === "string") return out;
  return out?.message ?? issue.message;
}
