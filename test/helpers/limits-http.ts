import { request } from "node:http";
import { INVOICE } from "./async-fixtures.ts";
import { api, type RunningStack } from "./local-stack.ts";
import { sampleParams } from "./sync-fixtures.ts";

/** A sync or async single request body for the invoice (OpenAPI generateSyncSingle, generateAsyncSingle). */
export const invoiceSingle = (
  designId: string,
  fileName = "invoice",
  params: Record<string, unknown> = sampleParams(INVOICE),
) => ({
  designId,
  version: 1,
  content: { fileName, params },
});

/** A multiple request body of `n` invoices (OpenAPI generateSyncMultiple, generateAsyncMultiple). */
export const invoiceMultiple = (designId: string, n: number, prefix = "invoice") => ({
  designId,
  version: 1,
  contents: Array.from({ length: n }, (_, i) => ({ fileName: `${prefix}-${i}`, params: sampleParams(INVOICE) })),
});

/** Invoice params with `rows` 明細 rows: a document of many pages (the header row repeats on each). */
export function invoiceWithRows(rows: number): Record<string, unknown> {
  const params = sampleParams(INVOICE);
  params.明細 = Array.from({ length: rows }, (_, i) => ({
    品名: `品目 ${i + 1}`,
    数量: 1 + (i % 3),
    単位: "個",
    単価: 100 + i,
    税率: i % 5 === 0 ? 8 : 10,
  }));
  return params;
}

/**
 * Invoice params whose JSON is exactly `bytes` UTF-8 bytes (error PARAMS_TOO_LARGE counts bytes, not
 * characters): the sample plus an unknown key (ignored by rendering) filled with 3-byte
 * characters and ASCII padding.
 */
export function invoiceParamsOfBytes(bytes: number): Record<string, unknown> {
  const size = (p: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(p), "utf8");
  const base = { ...sampleParams(INVOICE), 添付メモ: "" };
  const room = bytes - size(base);
  if (room < 0) throw new Error(`${bytes} bytes is smaller than the sample params`);
  const params = { ...base, 添付メモ: "あ".repeat(Math.floor(room / 3)) + "a".repeat(room % 3) };
  if (size(params) !== bytes) throw new Error(`built ${size(params)} bytes instead of ${bytes}`);
  return params;
}

/** POST JSON with optional extra headers (Idempotency-Key, Accept-Language). */
export function postJson(
  stack: RunningStack,
  appKey: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return api(stack, appKey)(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

export interface OversizedAnswer {
  /** 0 when no answer was read (see `error`). */
  status: number;
  /** The client-side error when the connection failed before an answer could be read. */
  error?: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** From the first byte written to the response head. */
  elapsedMs: number;
  /** Bytes handed to the socket before the response arrived. */
  bytesWritten: number;
  totalBytes: number;
  /** True when the server answered although the body was never completed. */
  answeredBeforeBodyEnd: boolean;
}

/**
 * Streams a `totalBytes` request body with node:http, either announced by Content-Length
 * or chunked. After `holdAfterBytes` it stops writing and waits up to `waitMs` for an
 * answer: a server that refuses without reading the whole body answers in that pause. If
 * none comes the rest is sent, so a server that only answers at the end is still observed.
 * Never rejects: a connection error is an answer with `status` 0 and `error`.
 */
export function postOversizedBody(
  url: string,
  opts: {
    chunked: boolean;
    totalBytes: number;
    holdAfterBytes: number;
    waitMs: number;
    headers?: Record<string, string>;
  },
): Promise<OversizedAnswer> {
  return new Promise((resolveAnswer) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
    if (!opts.chunked) headers["content-length"] = String(opts.totalBytes);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const started = Date.now();
    let written = 0;
    let answered = false;
    let ended = false;
    const req = request(url, { method: "POST", headers }, (res) => {
      answered = true;
      const elapsedMs = Date.now() - started;
      const bytesWritten = written;
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => {
        req.destroy();
        resolveAnswer({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(parts).toString("utf8"),
          elapsedMs,
          bytesWritten,
          totalBytes: opts.totalBytes,
          answeredBeforeBodyEnd: !ended,
        });
      });
    });
    req.on("error", (err) => {
      // e.g. EPIPE/ECONNRESET: the server dropped the connection before its answer was read.
      if (answered) return;
      answered = true; // stops the writer too
      resolveAnswer({
        status: 0,
        error: err.message,
        headers: {},
        body: "",
        elapsedMs: Date.now() - started,
        bytesWritten: written,
        totalBytes: opts.totalBytes,
        answeredBeforeBodyEnd: false,
      });
    });
    const write = (limit: number, then: () => void) => {
      while (!answered && written < limit) {
        const piece = chunk.subarray(0, Math.min(chunk.length, limit - written));
        written += piece.length;
        if (!req.write(piece)) return void req.once("drain", () => write(limit, then));
      }
      if (!answered) then();
    };
    const prefix = Buffer.from(
      '{"designId":"0123456789abcdef","version":1,"content":{"fileName":"big","params":{"blob":"',
    );
    written = prefix.length;
    req.write(prefix);
    write(opts.holdAfterBytes, () =>
      setTimeout(() => {
        if (answered) return;
        write(opts.totalBytes, () => {
          ended = true;
          req.end();
        });
      }, opts.waitMs),
    );
  });
}

/** Reads (and drops) the body so the connection is reused; returns the status. */
export async function statusOf(res: Promise<Response>): Promise<number> {
  const answer = await res;
  await answer.arrayBuffer();
  return answer.status;
}

/** How many answers had each status, e.g. `{ 400: 30, 429: 10 }`. */
export function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}
