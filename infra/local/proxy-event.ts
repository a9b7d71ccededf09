import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { binaryMediaTypes } from "#shared/definitions/index.ts";

/** Like API Gateway REST: a body whose Content-Type is a binary media type arrives base64-encoded. */
function isBinary(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return binaryMediaTypes.includes(type);
}

/** Turns an HTTP request into the REST API (v1) Lambda proxy event. */
export function toProxyEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  match: { resource: string; pathParameters: Record<string, string> | null },
): APIGatewayProxyEvent {
  // Maps, then own properties (as JSON.parse makes them in AWS): a header or query name such as
  // `constructor` or `__proto__` must not read or set what every object inherits.
  const headers = new Map<string, string>();
  const multiValueHeaders = new Map<string, string[]>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers.set(name, value); // REST (v1) proxy events keep the last value; all of them in multiValueHeaders
    multiValueHeaders.set(name, [...(multiValueHeaders.get(name) ?? []), value]);
  }
  const query = new Map<string, string>();
  const multiQuery = new Map<string, string[]>();
  for (const [k, v] of url.searchParams) {
    query.set(k, v); // API Gateway keeps the last value in queryStringParameters
    multiQuery.set(k, [...(multiQuery.get(k) ?? []), v]);
  }
  const binary = isBinary(req.headers["content-type"]);
  const requestId = randomUUID();
  return {
    resource: match.resource,
    path: url.pathname,
    httpMethod: req.method ?? "GET",
    headers: Object.fromEntries(headers),
    multiValueHeaders: Object.fromEntries(multiValueHeaders),
    queryStringParameters: query.size ? Object.fromEntries(query) : null,
    multiValueQueryStringParameters: multiQuery.size ? Object.fromEntries(multiQuery) : null,
    pathParameters: match.pathParameters,
    stageVariables: null,
    body: body.length ? (binary ? body.toString("base64") : body.toString("utf8")) : null,
    isBase64Encoded: body.length > 0 && binary,
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      httpMethod: req.method ?? "GET",
      path: url.pathname,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: "local",
      resourcePath: match.resource,
      stage: "local",
      identity: { sourceIp: req.socket.remoteAddress ?? "127.0.0.1", userAgent: req.headers["user-agent"] ?? null },
      authorizer: null,
    } as unknown as APIGatewayProxyEvent["requestContext"],
  };
}
