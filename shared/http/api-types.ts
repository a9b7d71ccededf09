import type { Readable } from "node:stream";
import type { Principal } from "#shared/auth/authenticate.ts";
import type { Admission } from "./admit.ts";
import type { EdgeContext } from "./edge-context.ts";
import type { EdgeRequest } from "./middleware/request-context.ts";

/** What a thin API handler returns; the edge turns it into an API Gateway proxy result (toProxy). */
export type ApiResult = ResultHead &
  (
    | { json: unknown }
    | { body: Buffer; contentType: string }
    /** `contentLength` undefined: a body of unknown length, sent chunked (a streamed CSV export). */
    | { stream: Readable; contentLength: number | undefined; contentType: string }
  );

interface ResultHead {
  status: number;
  headers?: Record<string, string>;
  /**
   * Work that must finish but need not delay the answer. Streaming routes run it once the
   * response is complete (the invocation lasts until it ends); other routes before answering.
   * It cannot change the response, so it reports its own failures (see runAfterResponse).
   */
  after?: () => Promise<void>;
}

/** The request as handlers see it, filled in by the middleware chain. */
export interface ApiRequest extends EdgeRequest {
  path(name: string): string;
  principal?: Principal;
  /** Authentication and rate limit as started by the middleware (authenticated routes). */
  admission?: Admission;
  /**
   * The caller of a route whose auth is `bearer-or-session` (a token, a login session, or an appkey
   * its authorization refuses), resolved by admission; not yet authorized or counted.
   */
  caller?: Principal;
}

/** The context of the API's chain: the parsed request rides on it (requestContext). */
export type ApiContext = EdgeContext<ApiRequest>;

export type ApiFunction = (req: ApiRequest & { principal: Principal }) => Promise<ApiResult>;
export type EarlyApiFunction = (req: ApiRequest & { admission: Admission }) => Promise<ApiResult>;
export type PublicApiFunction = (req: ApiRequest) => Promise<ApiResult>;
