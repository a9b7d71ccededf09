import { Readable } from "node:stream";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { routeMatcher } from "#shared/http/route-table.ts";
import { send } from "#shared/http/send.ts";
import { toProxy } from "#shared/http/to-proxy.ts";
import { cookieValue, parseCookies, setCookie } from "#shared/web/cookies.ts";
import { securityHeaders } from "#shared/web/security-headers.ts";

describe("the route table matcher (shared/http/route-table.ts)", () => {
  const match = routeMatcher([
    { methods: ["GET", "POST"], path: "/file/:requestId/:fileId", name: "file" },
    { methods: ["GET"], path: "/file/:requestId/:fileId/preview", name: "preview" },
    { methods: ["GET"], path: "/assets/site.css", name: "css" },
  ]);

  it("finds the row of a path and method, with its parameters decoded", () => {
    const hit = match("get", "/file/r%201/f1");
    expect(hit.route?.name).toBe("file");
    expect(hit.params).toEqual({ requestId: "r 1", fileId: "f1" });
    expect(match("GET", "/file/r1/f1/preview").route?.name).toBe("preview");
  });

  it("matches no row for a path segment whose percent-escapes do not decode (the 404 answer, never a 405)", () => {
    for (const bad of ["%E0%A4%A", "%ED%A0%80", "%zz", "%"]) {
      expect(match("GET", `/file/${bad}/f1`)).toEqual({ params: {}, allow: [] });
      expect(match("DELETE", `/file/r1/${bad}/preview`)).toEqual({ params: {}, allow: [] });
    }
  });

  it("tells a path of no route (404) from a path asked with another method (405 with Allow)", () => {
    expect(match("GET", "/nothing")).toEqual({ params: {}, allow: [] });
    expect(match("DELETE", "/file/r1/f1")).toEqual({ params: {}, allow: ["GET", "POST"] });
    expect(match("GET", "/assets/siteXcss").route).toBeUndefined();
  });
});

describe("toProxy: every handler result in the proxy shape (shared/http/to-proxy.ts)", () => {
  it("answers JSON as text and bytes as base64 on a buffered route", () => {
    const json = toProxy({ status: 201, json: { a: 1 }, headers: { "X-A": "1" } }, { lang: "ja", streaming: false });
    expect(json.head).toMatchObject({ statusCode: 201, body: '{"a":1}' });
    expect(json.head.headers).toMatchObject({ "Content-Language": "ja", "X-A": "1" });
    const bytes = toProxy(
      { status: 200, body: Buffer.from("hi"), contentType: "image/png" },
      { lang: "en", streaming: false },
    );
    expect(bytes).toEqual({
      head: {
        statusCode: 200,
        headers: { "Content-Type": "image/png", "Content-Length": "2", "Content-Language": "en" },
        body: "aGk=",
        isBase64Encoded: true,
      },
    });
  });

  it("hands bytes, text and streams over as they are on a streaming route, with cookies and the after-work", async () => {
    const after = async () => undefined;
    const text = toProxy(
      { status: 200, text: "é", contentType: "text/html; charset=utf-8", cookies: ["a=1"], after },
      { lang: "en", streaming: true },
    );
    expect(text.body).toEqual(Buffer.from("é"));
    expect(text.head.headers?.["Content-Length"]).toBe("2");
    expect(text.head.multiValueHeaders).toEqual({ "Set-Cookie": ["a=1"] });
    expect(text.after).toBe(after);
    const stream = Readable.from([Buffer.from("x")]);
    const streamed = toProxy(
      { status: 200, stream, contentLength: 1, contentType: "application/pdf" },
      { lang: "en", streaming: false },
    );
    expect(streamed.body).toBe(stream);
    const redirect = toProxy({ status: 303, redirect: "/x" }, { lang: "en", streaming: true });
    expect(redirect.head).toMatchObject({ statusCode: 303, body: "", headers: { Location: "/x" } });
  });
});

describe("send without the streaming runtime (shared/http/send.ts)", () => {
  it("collects a streamed body into base64 and runs the after-work before answering", async () => {
    const order: string[] = [];
    const handler = send(
      async () => ({
        head: { statusCode: 200, headers: { "Content-Type": "text/plain" }, body: "", isBase64Encoded: true },
        body: Readable.from([Buffer.from("ab"), Buffer.from("c")]),
        after: async () => {
          order.push("after");
        },
      }),
      { streaming: true },
    );
    const result = await handler({} as APIGatewayProxyEvent, {} as Context);
    order.push("answered");
    expect(Buffer.from(result.body, "base64").toString()).toBe("abc");
    expect(result.isBase64Encoded).toBe(true);
    expect(order).toEqual(["after", "answered"]);
  });
});

describe("one cookie and one security-header module (shared/web)", () => {
  it("reads the first occurrence of a cookie and writes every cookie with the same attributes", () => {
    expect(parseCookies("a=1; b = 2; a=3").get("a")).toBe("1");
    expect(cookieValue("x=1; platen_session=t.k", "platen_session")).toBe("t.k");
    expect(setCookie("platen_lang", "ja", { path: "/", maxAgeSeconds: 60, https: true, sameSite: "Lax" })).toBe(
      "platen_lang=ja; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure",
    );
  });

  it("gives the site's pages, its preview and the auth screens their own policy; HSTS only over https", () => {
    expect(securityHeaders("page", true)["Strict-Transport-Security"]).toBeDefined();
    expect(securityHeaders("page", false)["Strict-Transport-Security"]).toBeUndefined();
    expect(securityHeaders("preview", false)["X-Frame-Options"]).toBe("DENY");
    expect(securityHeaders("preview", false)["Content-Security-Policy"]).toContain("frame-ancestors 'none'");
    expect(securityHeaders("page", false)["Content-Security-Policy"]).toContain("frame-src 'none'");
    expect(securityHeaders("auth-screen", true)).toEqual({
      "Content-Security-Policy":
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
      "Referrer-Policy": "no-referrer",
      "Cache-Control": "no-store",
    });
  });
});
