import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "#shared/webhooks/send-webhook.ts";

/** A loopback receiver: `/redirect` answers 302 to `/target`, `/hang` never answers, `/busy` is 429. */
let server: Server;
let base: string;
const hits: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      hits.push({ path: req.url ?? "", headers: req.headers, body });
      if (req.url === "/redirect") res.writeHead(302, { location: `${base}/target` }).end();
      else if (req.url === "/busy") res.writeHead(429, { "retry-after": "7" }).end();
      else if (req.url !== "/hang") res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const post = (path: string, extra: Partial<Parameters<typeof postWebhook>[0]> = {}) =>
  postWebhook({
    url: `${base}${path}`,
    body: '{"a":"é"}',
    headers: { "Content-Type": "application/json" },
    timeoutMs: 2000,
    env: "local",
    ...extra,
  });

describe("postWebhook", () => {
  it("POSTs the body as is with the given headers and a byte Content-Length", async () => {
    const result = await post("/ok");
    expect(result.statusCode).toBe(200);
    const hit = hits.find((h) => h.path === "/ok")!;
    expect(hit.body).toBe('{"a":"é"}');
    expect(hit.headers["content-length"]).toBe("10");
    expect(hit.headers["content-type"]).toBe("application/json");
  });

  it("does not follow redirects: a 302 is the result and the Location target is never hit", async () => {
    expect((await post("/redirect")).statusCode).toBe(302);
    await new Promise((r) => setTimeout(r, 100));
    expect(hits.some((h) => h.path === "/target")).toBe(false);
  });

  it("cuts a receiver that does not answer at the deadline", async () => {
    const result = await post("/hang", { timeoutMs: 300 });
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toBe("timed out after 300 ms");
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(1500);
  });

  it("reports Retry-After of a 429", async () => {
    expect(await post("/busy")).toMatchObject({ statusCode: 429, retryAfter: "7" });
  });

  it("outside env local refuses loopback and private targets before connecting (SSRF)", async () => {
    const before = hits.length;
    expect((await post("/ok", { env: "production" })).error).toMatch(/^target refused: /);
    const rebinding = async () => [{ address: "10.0.0.7", family: 4 }];
    const named = await postWebhook({
      url: "https://hooks.example.com/x",
      body: "{}",
      headers: {},
      timeoutMs: 500,
      env: "production",
      lookup: rebinding,
    });
    expect(named.error).toBe("target refused: host name resolves to a non-public address (10.0.0.7)");
    expect(hits.length).toBe(before);
  });

  it("connects to the address it checked (pinned), whatever the host name says", async () => {
    const port = new URL(base).port;
    const pinned = async () => [{ address: "127.0.0.1", family: 4 }];
    const result = await postWebhook({
      url: `http://localhost:${port}/pinned`,
      body: "{}",
      headers: {},
      timeoutMs: 1000,
      env: "local",
      lookup: pinned,
    });
    expect(result.statusCode).toBe(200);
    expect(hits.find((h) => h.path === "/pinned")!.headers.host).toBe(`localhost:${port}`);
  });

  it("reports connection errors as text", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(
      (await postWebhook({ url: `http://127.0.0.1:${port}/`, body: "{}", headers: {}, timeoutMs: 1000, env: "local" }))
        .error,
    ).toMatch(/ECONNREFUSED/);
  });
});
