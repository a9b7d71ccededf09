import type { Readable } from "node:stream";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Principal } from "#shared/auth/authenticate.ts";
import type { Language } from "./language.ts";

/** What a thin API handler returns; the edge turns it into an API Gateway proxy result. */
export type ApiResult =
  | { status: number; headers?: Record<string, string>; json: unknown }
  | { status: number; headers?: Record<string, string>; body: Buffer; contentType: string }
  | { status: number; headers?: Record<string, string>; stream: Readable; contentLength: number; contentType: string };

/** The request as handlers see it, filled in by the middleware chain. */
export interface ApiRequest {
  event: APIGatewayProxyEvent;
  lang: Language;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  path(name: string): string;
  principal?: Principal;
  /** The body as text (API Gateway base64-encodes bodies of binary media types). */
  bodyText(): string | null;
  /** Time left before the function's (and the gateway's) deadline. */
  remainingMs(): number;
}

export type ApiFunction = (req: ApiRequest & { principal: Principal }) => Promise<ApiResult>;
export type PublicApiFunction = (req: ApiRequest) => Promise<ApiResult>;
