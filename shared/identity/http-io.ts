import type { IncomingMessage, ServerResponse } from "node:http";
import { securityHeaders } from "#shared/web/security-headers.ts";

const MAX_FORM_BYTES = 64 * 1024;

/** Reads a small request body (forms, token requests); larger ones are refused. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw Object.assign(new Error("request body too large"), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Ends the response with a body; screens and redirects are never cached. */
export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": contentType,
    "Cache-Control": "no-store",
    ...headers,
    "Content-Length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** An auth screen, with the security headers of the auth-screen profile (shared/web/security-headers.ts). */
export const sendHtml = (res: ServerResponse, status: number, html: string): void =>
  send(res, status, "text/html; charset=utf-8", html, securityHeaders("auth-screen", false));

export const sendJson = (
  res: ServerResponse,
  status: number,
  json: unknown,
  headers: Record<string, string> = {},
): void => send(res, status, "application/json; charset=utf-8", JSON.stringify(json), headers);

/**
 * infra/README.md#cross-origin-access: every origin may read the auth API's JSON answers (no cookies are
 * involved in them).
 */
export const ANY_ORIGIN = { "Access-Control-Allow-Origin": "*" } as const;

/** The client address: the proxy event's source IP (serverless-http puts it on the socket). */
export const sourceAddress = (req: IncomingMessage): string => req.socket?.remoteAddress ?? "unknown";
