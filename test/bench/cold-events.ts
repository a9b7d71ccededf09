import type { Message } from "@aws-sdk/client-sqs";
import type { APIGatewayProxyEvent, SQSEvent } from "aws-lambda";

/** A REST API (v1) proxy event as API Gateway hands it to the function. */
export function apiEvent(opts: {
  method: string;
  resource: string;
  path: string;
  appKey: string;
  body?: unknown;
  pathParameters?: Record<string, string>;
}): APIGatewayProxyEvent {
  const headers: Record<string, string> = {
    appkey: opts.appKey,
    ...(opts.body !== undefined && { "content-type": "application/json" }),
  };
  return {
    resource: opts.resource,
    path: `/v1${opts.path}`,
    httpMethod: opts.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: opts.pathParameters ?? null,
    stageVariables: null,
    body: opts.body === undefined ? null : JSON.stringify(opts.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: "000000000000",
      apiId: "bench",
      httpMethod: opts.method,
      path: `/v1${opts.path}`,
      protocol: "HTTP/1.1",
      requestId: crypto.randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: "bench",
      resourcePath: opts.resource,
      stage: "v1",
      identity: { sourceIp: "127.0.0.1", userAgent: "platen-bench" },
      authorizer: null,
    } as unknown as APIGatewayProxyEvent["requestContext"],
  };
}

/** The SQS event Lambda's event source mapping builds from received messages. */
export function sqsEvent(messages: Message[], queueArn: string): SQSEvent {
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? "",
      attributes: {
        ApproximateReceiveCount: "1",
        SentTimestamp: String(Date.now()),
        SenderId: "bench",
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? "",
      eventSource: "aws:sqs",
      eventSourceARN: queueArn,
      awsRegion: "us-east-1",
    })),
  };
}

/** A request to the site's proxy API (infra/stack/frontends.ts: `/` and `/{proxy+}` to one function), as a browser with `cookie` sends it. */
export function siteEvent(opts: { path: string; cookie: string }): APIGatewayProxyEvent {
  const headers: Record<string, string> = { cookie: opts.cookie, accept: "text/html", "accept-language": "en" };
  const proxy = opts.path.slice(1);
  return {
    resource: proxy ? "/{proxy+}" : "/",
    path: opts.path,
    httpMethod: "GET",
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: proxy ? { proxy } : null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      accountId: "000000000000",
      apiId: "bench",
      httpMethod: "GET",
      path: opts.path,
      protocol: "HTTP/1.1",
      requestId: crypto.randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: "bench",
      resourcePath: proxy ? "/{proxy+}" : "/",
      stage: "site",
      identity: { sourceIp: "127.0.0.1", userAgent: "platen-bench" },
      authorizer: null,
    } as unknown as APIGatewayProxyEvent["requestContext"],
  };
}
