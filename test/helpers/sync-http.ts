import { request } from "node:http";
import { api, type RunningStack } from "./local-stack.ts";
import type { ErrorBody } from "#shared/errors/error-body.ts";

export type SyncMode = "single" | "multiple";

export interface SyncCallOptions {
  /** Appended to the path as is, e.g. `?response=json`. */
  query?: string;
  headers?: Record<string, string>;
}

/**
 * POSTs to `/file/sync/{mode}` with a JSON body. A string body is sent verbatim (for
 * bodies that are not JSON); anything else is JSON.stringify'd.
 */
export function syncCaller(stack: RunningStack, appKey?: string) {
  const call = api(stack, appKey);
  return (mode: SyncMode, body: unknown, opts: SyncCallOptions = {}) =>
    call(`/file/sync/${mode}${opts.query ?? ""}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...opts.headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
}

/** OpenAPI generateAsyncSingle */
export interface ShareJson {
  shareType: string;
  url: string;
  passcodeEnabled: boolean;
  passcode?: string;
}

/** OpenAPI generateAsyncSingle, as carried by `X-File-Mapping`. */
export interface FileEntryJson {
  fileId: string;
  fileName: string;
  passthrough?: Record<string, string | number>;
  share: ShareJson;
}

/** OpenAPI generateSyncSingle: clients URL-decode, then parse. */
export function decodeFileMapping(header: string | null): FileEntryJson[] {
  if (header === null) throw new Error("X-File-Mapping header missing");
  return JSON.parse(decodeURIComponent(header)) as FileEntryJson[];
}

/** RFC 5987 `value-chars`: attr-chars and %XX only. */
export const RFC5987_VALUE_CHARS = /^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})+$/;

export interface ParsedDisposition {
  type: string;
  /** The quoted (or token) `filename` parameter, unescaped. */
  filename?: string;
  /** The raw `filename*` value after `UTF-8''`. */
  filenameStarRaw?: string;
  /** `filename*` decoded. */
  filenameStar?: string;
}

/** A small RFC 6266 parser: disposition type, `filename` (quoted-string or token) and `filename*`. */
export function parseContentDisposition(value: string | null): ParsedDisposition {
  if (value === null) throw new Error("Content-Disposition header missing");
  const type = value.split(";")[0]!.trim().toLowerCase();
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(value);
  const token = /(?:^|;)\s*filename\s*=\s*([^";\s]+)/i.exec(value);
  const star = /(?:^|;)\s*filename\*\s*=\s*UTF-8''([^;\s]*)/i.exec(value);
  const filename = quoted ? quoted[1]!.replace(/\\(.)/g, "$1") : token?.[1];
  return {
    type,
    ...(filename !== undefined && { filename }),
    ...(star && { filenameStarRaw: star[1]!, filenameStar: decodeURIComponent(star[1]!) }),
  };
}

/** README.md#errors (the shape the edge declares; the tests check its values). */
export type ErrorBodyJson = ErrorBody;

/** Reads a JSON error body (fails loudly with the raw text when it is not JSON). */
export async function readErrorBody(res: Response): Promise<ErrorBodyJson> {
  const text = await res.text();
  try {
    return JSON.parse(text) as ErrorBodyJson;
  } catch {
    throw new Error(`expected a JSON error body, got ${res.status}: ${text.slice(0, 300)}`);
  }
}

/** Every response header as one string, URL-decoded where possible (to search for leaks). */
export function allHeadersText(res: Response): string {
  const parts: string[] = [];
  res.headers.forEach((value, name) => {
    parts.push(`${name}: ${value}`);
    try {
      parts.push(decodeURIComponent(value));
    } catch {
      // not URL-encoded
    }
  });
  return parts.join("\n");
}

/** A 16-character alphanumeric id (OpenAPI generateAsyncSingle). */
export const ID_16 = /^[0-9A-Za-z]{16}$/;

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * POST with node:http and a raised response-header limit: for answers whose headers
 * exceed what fetch accepts by default (16 KiB), to still inspect what the server sent.
 */
export function postWithLargeHeaders(url: string, headers: Record<string, string>, body: string): Promise<RawResponse> {
  return new Promise((resolveResponse, reject) => {
    const req = request(url, { method: "POST", headers, maxHeaderSize: 4 * 1024 * 1024 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolveResponse({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
