import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { binaryMediaTypes } from "#shared/definitions/index.ts";
import { toProxyEvent } from "#infra/local/proxy-event.ts";

interface FakeRequest {
  method?: string;
  rawHeaders?: string[];
  httpVersion?: string;
  remoteAddress?: string;
}

/** Just the parts of IncomingMessage toProxyEvent reads, filled the way node:http fills them. */
function fakeRequest({ method = "GET", rawHeaders = [], httpVersion = "1.1", remoteAddress }: FakeRequest = {}) {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    headers[name] = headers[name] === undefined ? rawHeaders[i + 1]! : `${headers[name]}, ${rawHeaders[i + 1]}`;
  }
  return { method, rawHeaders, headers, httpVersion, socket: { remoteAddress } } as unknown as IncomingMessage;
}

const noMatch = { resource: "/health/check", pathParameters: null };

function event(
  req: FakeRequest,
  url = "http://localhost:3000/health/check",
  body: Buffer = Buffer.alloc(0),
  match: { resource: string; pathParameters: Record<string, string> | null } = noMatch,
) {
  return toProxyEvent(fakeRequest(req), new URL(url), body, match);
}

describe("toProxyEvent: body", () => {
  const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0xfe, 0x80]);

  it.each(binaryMediaTypes)("base64-encodes a %s body", (type) => {
    const e = event({ method: "POST", rawHeaders: ["Content-Type", type] }, undefined, pdf);
    expect(e.isBase64Encoded).toBe(true);
    expect(e.body).toBe(pdf.toString("base64"));
    expect(Buffer.from(e.body!, "base64").equals(pdf)).toBe(true);
  });

  it("matches binary types case-insensitively and ignores parameters", () => {
    const e = event({ method: "POST", rawHeaders: ["content-type", "Application/PDF; name=x.pdf"] }, undefined, pdf);
    expect(e.isBase64Encoded).toBe(true);
    expect(e.body).toBe(pdf.toString("base64"));
  });

  it("passes a JSON body as a UTF-8 string, multibyte characters intact", () => {
    const json = JSON.stringify({ params: { 名前: "山田 太郎", emoji: "📄" } });
    const e = event(
      { method: "POST", rawHeaders: ["Content-Type", "application/json; charset=utf-8"] },
      undefined,
      Buffer.from(json, "utf8"),
    );
    expect(e.isBase64Encoded).toBe(false);
    expect(e.body).toBe(json);
  });

  it("treats a body without Content-Type as text", () => {
    const e = event({ method: "POST" }, undefined, Buffer.from("hello"));
    expect(e.body).toBe("hello");
    expect(e.isBase64Encoded).toBe(false);
  });

  it("gives a null body and isBase64Encoded false for an empty body, binary type or not", () => {
    for (const rawHeaders of [[], ["Content-Type", "application/json"], ["Content-Type", "application/pdf"]]) {
      const e = event({ method: "POST", rawHeaders });
      expect(e.body).toBeNull();
      expect(e.isBase64Encoded).toBe(false);
    }
  });
});

describe("toProxyEvent: query string", () => {
  it("is null in both fields when there is no query", () => {
    const e = event({}, "http://localhost/file/designs");
    expect(e.queryStringParameters).toBeNull();
    expect(e.multiValueQueryStringParameters).toBeNull();
  });

  it("is null for a bare question mark", () => {
    const e = event({}, "http://localhost/file/designs?");
    expect(e.queryStringParameters).toBeNull();
    expect(e.multiValueQueryStringParameters).toBeNull();
  });

  it("keeps the last value in queryStringParameters and all values in order in the multi-value field", () => {
    const e = event({}, "http://localhost/file/designs?page=1&tag=a&page=2&tag=b&tag=c");
    expect(e.queryStringParameters).toEqual({ page: "2", tag: "c" });
    expect(e.multiValueQueryStringParameters).toEqual({ page: ["1", "2"], tag: ["a", "b", "c"] });
  });

  it("decodes percent-encoding and keeps empty values", () => {
    const e = event({}, "http://localhost/x?name=%E5%B1%B1%E7%94%B0&q=a%20b&plus=a+b&empty=&flag");
    expect(e.queryStringParameters).toEqual({ name: "山田", q: "a b", plus: "a b", empty: "", flag: "" });
  });
});

describe("toProxyEvent: path, method and context", () => {
  it("passes resource and path parameters through", () => {
    const match = { resource: "/file/design/parameter/{designId}", pathParameters: { designId: "abc123" } };
    const e = event({}, "http://localhost/file/design/parameter/abc123?version=2", undefined, match);
    expect(e.resource).toBe("/file/design/parameter/{designId}");
    expect(e.pathParameters).toEqual({ designId: "abc123" });
    expect(e.path).toBe("/file/design/parameter/abc123");
    expect(e.requestContext.resourcePath).toBe("/file/design/parameter/{designId}");
    expect(e.requestContext.path).toBe("/file/design/parameter/abc123");
  });

  it("keeps null path parameters null", () => {
    expect(event({}).pathParameters).toBeNull();
  });

  it("fills method, protocol, source IP and user agent", () => {
    const e = event({
      method: "POST",
      httpVersion: "1.1",
      remoteAddress: "10.1.2.3",
      rawHeaders: ["User-Agent", "platen-test/1.0"],
    });
    expect(e.httpMethod).toBe("POST");
    expect(e.requestContext.httpMethod).toBe("POST");
    expect(e.requestContext.protocol).toBe("HTTP/1.1");
    expect(e.requestContext.identity.sourceIp).toBe("10.1.2.3");
    expect(e.requestContext.identity.userAgent).toBe("platen-test/1.0");
    expect(e.stageVariables).toBeNull();
  });

  it("falls back to 127.0.0.1 and a null user agent", () => {
    const e = event({});
    expect(e.requestContext.identity.sourceIp).toBe("127.0.0.1");
    expect(e.requestContext.identity.userAgent).toBeNull();
  });

  it("gives each event its own request id", () => {
    const a = event({}).requestContext.requestId;
    const b = event({}).requestContext.requestId;
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });
});

describe("toProxyEvent: headers", () => {
  it("keeps header names as sent (REST API v1 does not lower-case them)", () => {
    const e = event({ rawHeaders: ["Accept-Language", "ja", "appkey", "plt_x", "X-Workspace-Id", "w1"] });
    expect(e.headers).toEqual({ "Accept-Language": "ja", appkey: "plt_x", "X-Workspace-Id": "w1" });
    expect(e.multiValueHeaders).toEqual({ "Accept-Language": ["ja"], appkey: ["plt_x"], "X-Workspace-Id": ["w1"] });
  });

  it("lists every value of a repeated header in multiValueHeaders, in order", () => {
    const e = event({ rawHeaders: ["Cookie", "a=1", "Accept", "text/html", "Cookie", "b=2", "Cookie", "c=3"] });
    expect(e.multiValueHeaders).toEqual({ Cookie: ["a=1", "b=2", "c=3"], Accept: ["text/html"] });
  });

  it("keeps the last value of a repeated header in headers, as API Gateway REST (v1) does", () => {
    // Like queryStringParameters: REST v1 puts only the last value in the single-value map;
    // joining with commas is payload format 2.0 behaviour.
    const e = event({ rawHeaders: ["X-Trace", "one", "X-Trace", "two"] });
    expect(e.headers["X-Trace"]).toBe("two");
    expect(e.multiValueHeaders["X-Trace"]).toEqual(["one", "two"]);
  });

  it("gives empty header maps when there are no headers", () => {
    const e = event({});
    expect(e.headers).toEqual({});
    expect(e.multiValueHeaders).toEqual({});
  });
});

describe("toProxyEvent: names that every object inherits (found by the site fuzz)", () => {
  it("keeps a query or header named constructor or __proto__ as an own value, as JSON.parse does in AWS", () => {
    const e = event(
      { rawHeaders: ["constructor", "1", "__proto__", "2", "constructor", "3"] },
      "http://localhost:3000/health/check?constructor=a&__proto__=b&constructor=c&toString=d",
    );
    expect(e.queryStringParameters).toEqual(JSON.parse('{"constructor":"c","__proto__":"b","toString":"d"}'));
    expect(e.multiValueQueryStringParameters?.constructor).toEqual(["a", "c"]);
    expect(Object.hasOwn(e.multiValueQueryStringParameters!, "__proto__")).toBe(true);
    expect(e.multiValueHeaders.constructor).toEqual(["1", "3"]);
    expect(e.headers.constructor).toBe("3");
    expect(Object.getPrototypeOf(e.headers)).toBe(Object.prototype);
  });
});
