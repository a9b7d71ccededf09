import type { RunningStack } from "./local-stack.ts";

/** Who calls the design API in a test: a Bearer token, a login session (with its workspace), or an appkey. */
export interface DesignCaller {
  token?: string;
  cookie?: string;
  workspace?: string;
  appkey?: string;
  origin?: string;
}

export interface DesignAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  body: Record<string, any>;
  bytes: Buffer;
}

/**
 * A design API call: JSON bodies as objects, bundle zips as Buffers (sent as
 * application/zip); JSON answers parsed, binary ones kept as bytes.
 */
export function designApi(stack: RunningStack) {
  return async (method: string, path: string, caller: DesignCaller, body?: unknown): Promise<DesignAnswer> => {
    const headers: Record<string, string> = {};
    if (caller.token) headers.authorization = `Bearer ${caller.token}`;
    if (caller.cookie) headers.cookie = caller.cookie;
    if (caller.workspace) headers["x-workspace-id"] = caller.workspace;
    if (caller.appkey) headers.appkey = caller.appkey;
    if (caller.origin) headers.origin = caller.origin;
    let payload: BodyInit | undefined;
    if (Buffer.isBuffer(body)) {
      headers["content-type"] = "application/zip";
      payload = new Uint8Array(body);
    } else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = typeof body === "string" ? body : JSON.stringify(body);
    }
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers,
      ...(payload !== undefined && { body: payload }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const json =
      /json/.test(res.headers.get("content-type") ?? "") && bytes.length ? JSON.parse(bytes.toString("utf8")) : {};
    return { status: res.status, headers: res.headers, body: json, bytes };
  };
}

/** A small valid design in the JSON form: one text parameter, a sample, a style. */
export function jsonDesign(label: string, extra: Record<string, unknown> = {}) {
  return {
    label,
    description: `${label} for tests`,
    template: "<h1>{{ title }}</h1>\n<p>{{ body }}</p>\n",
    style: "h1 { color: #123456; }",
    parameters: [
      { name: "title", type: "text", label: "Title" },
      { name: "body", type: "text", label: "Body" },
    ],
    sampleParams: { title: "Hello", body: "World" },
    ...extra,
  };
}
