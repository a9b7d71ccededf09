import type { Readable } from "node:stream";
import type { HeaderProfile } from "#shared/web/security-headers.ts";
import type { EdgeRequest } from "#shared/http/middleware/request-context.ts";
import type { RouteRow } from "#shared/http/route-table.ts";
import type { Html } from "#shared/html/html.ts";

/** The visitor as the site knows them: anonymous, or a logged-in user (identity session). */
export interface Visitor {
  userId?: string;
}

/** A request as page handlers see it: the shared request (headers, query, cookies, language) and the site's parts. */
export interface SiteRequest extends EdgeRequest {
  method: string;
  path: string;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** The url-encoded form body of a POST (empty for other bodies). */
  form(): URLSearchParams;
  /** The client address (API Gateway's source IP). */
  sourceIp: string;
  /** The URL the visitor asked for, path and query, to come back to after a login. */
  returnTo: string;
  /** The sign-out button's CSRF token (page-parts.ts `signOutToken`), when the request has a session cookie. */
  signOutToken?: string;
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
    /** `contentLength` undefined: a body of unknown length, sent chunked (the records' CSV export). */
    | { stream: Readable; contentLength: number | undefined; contentType: string }
  );

export type PageHandler = (req: SiteRequest) => Promise<SiteResult>;

/** One row of the site's route table (handler.ts): methods, path pattern, page handler. */
export interface SitePage extends RouteRow {
  page: PageHandler;
  /**
   * The security-header profile of its answers when not the page one: the framed PDF preview, or
   * a studio page that loads its bundled script.
   */
  headers?: Extract<HeaderProfile, "preview" | "studio">;
}
