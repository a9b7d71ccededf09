import type { Readable } from "node:stream";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Principal } from "#shared/auth/authenticate.ts";
import type { Admission } from "./admit.ts";
import type { Language } from "#shared/errors/language.ts";

/** What a thin API handler returns; the edge turns it into an API Gateway proxy result. */
export type ApiResult = ResultHead &
  (
    | { json: unknown }
    | { body: Buffer; contentType: string }
    | { stream: Readable; contentLength: number; contentType: string }
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
export interface ApiRequest {
  event: APIGatewayProxyEvent;
  lang: Language;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  path(name: string): string;
  principal?: Principal;
  /** Authentication and rate limit as started by the middleware (authenticated routes). */
  admission?: Admission;
  /** The body as text (API Gateway base64-encodes bodies of binary media types). */
  bodyText(): string | null;
  /** Time left before the function's (and the gateway's) deadline. */
  remainingMs(): number;
}

export type ApiFunction = (req: ApiRequest & { principal: Principal }) => Promise<ApiResult>;
export type EarlyApiFunction = (req: ApiRequest & { admission: Admission }) => Promise<ApiResult>;
export type PublicApiFunction = (req: ApiRequest) => Promise<ApiResult>;
