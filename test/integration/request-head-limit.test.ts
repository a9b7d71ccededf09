import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";

/**
 * A request head over the local gateway's 16 KB: 431 with the error body (README.md#errors), JSON content
 * type and the CORS headers, so a browser on another origin can read why, like every other refusal.
 */

let stack: SharedStack;

beforeAll(async () => {
  stack = await sharedStack();
});

afterAll(() => stack?.release());

describe("request head over 16 KB", () => {
  it("answers 431 REQUEST_HEADERS_TOO_LARGE with the error body and CORS headers", async () => {
    const res = await fetch(`${stack.baseUrl}/file/designs`, {
      headers: { appkey: "plt_x", "x-filler": "a".repeat(20 * 1024), origin: "https://other.example" },
    });
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-ID");
    expect(res.headers.get("content-language")).toBe("en");
    expect(await res.json()).toEqual({
      statusCode: 431,
      error: "Request Header Fields Too Large",
      code: "REQUEST_HEADERS_TOO_LARGE",
      message: expect.stringContaining("16"),
      details: [],
      docsUrl: expect.stringMatching(/\/docs\/errors#request_headers_too_large$/),
    });
  });

  it("answers in Japanese when the request asked for it (Accept-Language before the long header)", async () => {
    const res = await fetch(`${stack.baseUrl}/file/designs`, {
      headers: { "accept-language": "ja", appkey: "plt_x", "x-filler": "a".repeat(20 * 1024) },
    });
    expect(res.status).toBe(431);
    expect(res.headers.get("content-language")).toBe("ja");
    const body = await res.json();
    expect(body.code).toBe("REQUEST_HEADERS_TOO_LARGE");
    expect(body.message).toBe(
      "リクエスト行とヘッダーが大きすぎます（16 KB 超）。ヘッダーを短くするか、Cookie を減らしてください。",
    );
    expect(body.docsUrl).toMatch(/\/ja\/docs\/errors#request_headers_too_large$/);
  });

  it("still serves the next request (the server is not harmed)", async () => {
    expect((await fetch(`${stack.baseUrl}/health/check`)).status).toBe(200);
  });
});

describe("request head over 16 KB with a large body still being sent", () => {
  it.each([100_000, 8_000_000])(
    "answers 431 instead of resetting the connection while a body of %i bytes arrives",
    async (size) => {
      const res = await fetch(`${stack.baseUrl}/file/generate-sync`, {
        method: "POST",
        headers: { appkey: "plt_x", "x-filler": "a".repeat(20 * 1024), "content-type": "application/json" },
        body: JSON.stringify({ data: "b".repeat(size) }),
      });
      expect(res.status).toBe(431);
      expect((await res.json()).code).toBe("REQUEST_HEADERS_TOO_LARGE");
      expect((await fetch(`${stack.baseUrl}/health/check`)).status).toBe(200);
    },
  );
});
