import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import type { ApiRequest } from "../api-types.ts";
import { pickLanguage } from "#shared/errors/language.ts";

/** The parsed request of each in-flight event, for the final handler to pick up. */
export const requestsByEvent = new WeakMap<APIGatewayProxyEvent, ApiRequest>();

/** Builds the case-insensitive header reader, query/path accessors and the language. */
export function requestContext(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: (handler) => {
      const event = handler.event;
      const headers = new Map<string, string>();
      for (const [name, value] of Object.entries(event.headers ?? {})) {
        if (value !== undefined) headers.set(name.toLowerCase(), value);
      }
      const header = (name: string) => headers.get(name.toLowerCase());
      const request: ApiRequest = {
        event,
        lang: pickLanguage(header("accept-language")),
        header,
        query: (name) => event.queryStringParameters?.[name] ?? undefined,
        path: (name) => event.pathParameters?.[name] ?? "",
        bodyText: () =>
          event.isBase64Encoded && event.body ? Buffer.from(event.body, "base64").toString("utf8") : event.body,
        remainingMs: () => handler.context.getRemainingTimeInMillis?.() ?? 29_000,
      };
      requestsByEvent.set(event, request);
    },
  };
}
