import type { Readable } from "node:stream";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Language } from "#shared/errors/language.ts";
import type { Html } from "#shared/html/html.ts";

/** The visitor as the site knows them: anonymous, or a logged-in user (identity session). */
export interface Visitor {
  userId?: string;
}

/** A request as page handlers see it. */
export interface SiteRequest {
  event: APIGatewayProxyEvent;
  method: string;
  path: string;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  lang: Language;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  cookie(name: string): string | undefined;
  /** The url-encoded form body of a POST (empty for other bodies). */
  form(): URLSearchParams;
  /** The client address (API Gateway's source IP). */
  sourceIp: string;
  /** The URL the visitor asked for, path and query, to come back to after a login. */
  returnTo: string;
}

interface ResultHead {
  status: number;
  headers?: Record<string, string>;
  /** Set-Cookie lines. */
  cookies?: string[];
}

/** What a page handler returns; the handler turns it into a proxy result with the security headers. */
export type SiteResult = ResultHead &
  (
    | { page: Html }
    | { redirect: string }
    | { text: string; contentType: string }
    | { stream: Readable; contentLength: number; contentType: string }
  );

export type PageHandler = (req: SiteRequest) => Promise<SiteResult>;
