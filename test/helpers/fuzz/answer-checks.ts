import { STATUS_CODES } from "node:http";
import { catalogue, type ErrorCode } from "#shared/errors/catalogue.ts";
import { type Language, pickLanguage } from "#shared/errors/language.ts";
import type { FuzzOperation } from "./served-operations.ts";

/**
 * What must hold of every answer, whatever was sent (README.md#errors): no 5xx, the CORS
 * header, a documented status, the error body with a catalogue code and its message in the
 * language asked for, and nothing of the implementation in any body. Returns the problems
 * found, as sentences, rather than asserting: the fuzz reports every problem of a case.
 */

export interface FuzzAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** The parsed body when it was JSON. */
  json?: unknown;
}

/** Statuses the gateway in front of the API answers for any route (README.md#errors). */
const GATEWAY_STATUSES = new Set([413, 431]);

/** Words of the implementation that must never reach a client. */
const LEAKS: RegExp[] = [
  /\bat (?:Object\.|async |new |file:\/\/|\/)/,
  /\.ts:\d+/,
  /node_modules/,
  /\b(?:Type|Reference|Range|Syntax|URI)Error\b/,
  /ZodError/,
  /DynamoDB/,
  /ConditionalCheckFailed/,
  /ValidationException/,
  /\bS3\b|NoSuchKey/,
  /Chromium|puppeteer/i,
  /Cannot read propert/,
  /is not a function/,
  /Maximum call stack/,
  // zod's wording of a missing value, and V8's of a body it quotes back ("…" is not valid JSON).
  /received undefined/,
  /\\?" is not valid JSON/,
];

export interface SentFacts {
  acceptLanguage: string | undefined;
  hugeHeader: boolean;
}

const BODY_KEYS = new Set(["statusCode", "code", "message", "error", "details", "docsUrl", "retryAfter"]);
const DETAIL_KEYS = new Set(["field", "expected", "code", "message", "file", "line", "column", "latestVersion"]);

export function answerProblems(op: FuzzOperation, sent: SentFacts, answer: FuzzAnswer): string[] {
  const problems: string[] = [];
  const { status } = answer;
  if (status >= 500) problems.push(`answered ${status}`);
  if (answer.headers.get("access-control-allow-origin") !== "*") problems.push("no Access-Control-Allow-Origin: *");
  if (!op.statuses.has(status) && !GATEWAY_STATUSES.has(status))
    problems.push(`status ${status} is not documented for ${op.operationId}`);
  if (sent.hugeHeader && status !== 431) problems.push(`a 17 KB header answered ${status}, not 431`);
  const text = isText(answer) ? answer.bytes.toString("utf8") : "";
  // A successful body may echo what was sent (a label "undefined"): only stack traces are looked for there.
  const leaks = status >= 400 ? LEAKS : LEAKS.slice(0, 3);
  if (op.operationId !== "getOpenApiDocument") {
    for (const leak of leaks) if (leak.test(text)) problems.push(`the body shows ${leak}: ${excerpt(text, leak)}`);
  }
  if (status >= 400) problems.push(...errorBodyProblems(status, pickLanguage(sent.acceptLanguage), answer));
  return problems;
}

/** Kana or kanji: a Japanese sentence has some. */
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

function errorBodyProblems(status: number, lang: Language, answer: FuzzAnswer): string[] {
  const problems: string[] = [];
  if (!/^application\/json/.test(answer.headers.get("content-type") ?? ""))
    problems.push(`error answered as ${answer.headers.get("content-type")}`);
  const body = answer.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object" || Array.isArray(body)) return [...problems, "the error body is not an object"];
  const extra = Object.keys(body).filter((k) => !BODY_KEYS.has(k));
  if (extra.length) problems.push(`the error body has fields ${extra.join(", ")}`);
  if (body.statusCode !== status) problems.push(`statusCode ${body.statusCode} on a ${status}`);
  if (body.error !== STATUS_CODES[status]) problems.push(`error "${body.error}" on a ${status}`);
  const code = body.code as ErrorCode;
  const entry = typeof code === "string" ? catalogue[code] : undefined;
  if (!entry) return [...problems, `code ${JSON.stringify(code)} is not in the catalogue`];
  if (entry.status !== status) problems.push(`code ${code} is a ${entry.status}, answered ${status}`);
  if (
    typeof body.docsUrl !== "string" ||
    !body.docsUrl.endsWith(`${lang === "ja" ? "/ja" : ""}/docs/errors#${code.toLowerCase()}`)
  )
    problems.push(`docsUrl ${body.docsUrl} for ${code} in ${lang}`);
  if (answer.headers.get("content-language") !== lang)
    problems.push(`Content-Language ${answer.headers.get("content-language")}, asked for ${lang}`);
  const details = body.details;
  if (!Array.isArray(details)) return [...problems, "details is not an array"];
  for (const d of details as Record<string, unknown>[]) {
    if (!d || typeof d !== "object" || typeof d.message !== "string") problems.push("a detail without a message");
    else if (Object.keys(d).some((k) => !DETAIL_KEYS.has(k))) problems.push(`a detail has fields ${Object.keys(d)}`);
    // Every route words its details in both languages: an English-only one under ja is a text without its Japanese.
    else if (lang === "ja" && !JAPANESE.test(d.message)) problems.push(`the detail "${d.message}" is not in Japanese`);
  }
  const message = body.message;
  if (Array.isArray(message)) {
    // Body validation: one sentence per detail, prefixed with its field.
    if (status !== 400 || message.length !== details.length || message.some((m) => typeof m !== "string"))
      problems.push(`message is an array of ${message.length} on a ${status} with ${details.length} details`);
  } else if (typeof message !== "string" || !catalogueMessage(entry[lang]).test(message)) {
    problems.push(`message ${JSON.stringify(message)} is not ${code}'s ${lang} text`);
  }
  if (
    body.retryAfter !== undefined &&
    status !== 429 &&
    code !== "FILE_NOT_READY" &&
    code !== "IDEMPOTENCY_KEY_IN_PROGRESS"
  )
    problems.push(`retryAfter on ${code}`);
  return problems;
}

/** The catalogue text with its `{name}` placeholders free. */
function catalogueMessage(template: string): RegExp {
  const parts = template.split(/\{\w+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".+")}$`, "s");
}

function isText(answer: FuzzAnswer): boolean {
  const type = answer.headers.get("content-type") ?? "";
  return /json|text|html|xml/.test(type) || type === "";
}

function excerpt(text: string, pattern: RegExp): string {
  const i = text.search(pattern);
  return JSON.stringify(text.slice(Math.max(0, i - 80), i + 80));
}
