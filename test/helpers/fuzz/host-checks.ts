import { STATUS_CODES } from "node:http";
import { catalogue, type ErrorCode } from "#shared/errors/catalogue.ts";
import type { FuzzAnswer } from "./answer-checks.ts";

/**
 * What must hold of every answer of the site and the auth host, whatever was sent: no 5xx,
 * nothing of the implementation in the body (stack frames, file paths, error class names), and
 * a refusal (4xx) that is either an HTML page of ours or, for a script or API-shaped call, the
 * catalogue's error body (README.md#errors); the OAuth endpoints that answer JSON use RFC 6749's
 * `{error, error_description}` (the spec's "OAuth token errors"). Returns the problems as
 * sentences: the fuzz reports every problem of a case.
 */

/** Words of the implementation that must never reach a client, in any answer. */
const STACK_LEAKS: RegExp[] = [
  /\n\s+at \S/,
  /\bat (?:Object\.|async |new |file:\/\/|\/)/,
  /\.ts:\d+/,
  /node_modules/,
  /\/work\//,
  /\/home\/|\/tmp\/platen/,
];

/**
 * And in a refusal: the names of what went wrong inside. (JSON's own syntax messages are not among them:
 * the editor's form shows the author where the JSON they typed does not parse, by design.)
 */
const REFUSAL_LEAKS: RegExp[] = [
  /\b(?:Type|Reference|Range|Syntax|URI)Error\b/,
  /ZodError/,
  /DynamoDB|ConditionalCheckFailed|ValidationException|NoSuchKey/,
  /Cannot read propert|is not a function|Maximum call stack/,
  /URI malformed/,
];

export type Refusal = "html" | "catalogue" | "oauth";

export function hostAnswerProblems(answer: FuzzAnswer, method: string): string[] {
  const problems: string[] = [];
  const { status } = answer;
  if (status >= 500) problems.push(`answered ${status}`);
  const text = isText(answer) ? answer.bytes.toString("utf8") : "";
  const leaks = status >= 400 ? [...STACK_LEAKS, ...REFUSAL_LEAKS] : STACK_LEAKS;
  for (const leak of leaks) if (leak.test(text)) problems.push(`the body shows ${leak}: ${excerpt(text, leak)}`);
  if (status >= 400 && method !== "HEAD") problems.push(...refusalProblems(answer, text));
  return problems;
}

/** The kind of a refusal's body, or a problem. */
export function refusalKind(answer: FuzzAnswer): Refusal | undefined {
  const type = answer.headers.get("content-type") ?? "";
  if (/^text\/html/.test(type)) return "html";
  const body = answer.json as Record<string, unknown> | undefined;
  if (!/^application\/json/.test(type) || !body || typeof body !== "object") return undefined;
  return typeof body.code === "string" ? "catalogue" : typeof body.error === "string" ? "oauth" : undefined;
}

function refusalProblems(answer: FuzzAnswer, text: string): string[] {
  const kind = refusalKind(answer);
  if (kind === "html")
    // The auth host's screens are minimal documents (html, head and body are optional in HTML).
    return /^<!doctype html>/i.test(text.trimStart()) ? [] : [`the ${answer.status} page is not an HTML document`];
  if (kind === "catalogue") return catalogueProblems(answer.status, answer.json as Record<string, unknown>);
  if (kind === "oauth") return oauthProblems(answer.json as Record<string, unknown>);
  return [`the ${answer.status} is neither an HTML page nor an error body (${answer.headers.get("content-type")})`];
}

/** The API's error body: a catalogue code of this status with its message (either language). */
function catalogueProblems(status: number, body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const code = body.code as ErrorCode;
  const entry = catalogue[code];
  if (!entry) return [`code ${JSON.stringify(code)} is not in the catalogue`];
  if (entry.status !== status) problems.push(`code ${code} is a ${entry.status}, answered ${status}`);
  if (body.statusCode !== status) problems.push(`statusCode ${body.statusCode} on a ${status}`);
  if (body.error !== STATUS_CODES[status]) problems.push(`error "${body.error}" on a ${status}`);
  const messages = Array.isArray(body.message) ? body.message : [body.message];
  if (!messages.every((m) => typeof m === "string" && m.length > 0)) problems.push("a message that is not text");
  if (!Array.isArray(body.details)) problems.push("details is not an array");
  if (typeof body.docsUrl !== "string" || !body.docsUrl.endsWith(`/docs/errors#${code.toLowerCase()}`))
    problems.push(`docsUrl ${body.docsUrl} for ${code}`);
  return problems;
}

/** RFC 6749 5.2: `error` an ASCII code, `error_description` optional text. */
function oauthProblems(body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (!/^[a-z_]+$/.test(String(body.error))) problems.push(`OAuth error ${JSON.stringify(body.error)}`);
  if (body.error_description !== undefined && typeof body.error_description !== "string")
    problems.push("error_description is not text");
  return problems;
}

function isText(answer: FuzzAnswer): boolean {
  const type = answer.headers.get("content-type") ?? "";
  return /json|text|html|xml|javascript|css/.test(type) || type === "";
}

function excerpt(text: string, pattern: RegExp): string {
  const i = text.search(pattern);
  return JSON.stringify(text.slice(Math.max(0, i - 80), i + 80));
}

/** Sends one case and reads the whole answer (JSON parsed when it says it is JSON). */
export async function sendCase(url: string, init: RequestInit): Promise<FuzzAnswer> {
  const res = await fetch(url, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: unknown;
  if (/json/.test(res.headers.get("content-type") ?? "")) {
    try {
      json = JSON.parse(bytes.toString("utf8"));
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, bytes, json };
}

/** The failure of a fast-check run as one message (the case and answer, not the whole generated value), or "". */
export function failureOf(run: { failed: boolean; errorInstance: unknown }): string {
  if (!run.failed) return "";
  return run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
}
