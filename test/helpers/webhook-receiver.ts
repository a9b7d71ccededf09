import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got, with the raw body bytes (what a signature covers). */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: payloads are asserted field by field
  body: any;
  at: number;
}

/** How a path answers its n-th request (1-based); `hang` never answers. */
export type Reply = { status: number; headers?: Record<string, string>; delayMs?: number } | "hang";

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port><path>`: loopback, allowed in env local. */
  url(path: string): string;
  received: ReceivedWebhook[];
  /** Requests to one path. */
  at(path: string): ReceivedWebhook[];
  /** Sets how a path answers (default: 200). */
  answer(path: string, reply: (n: number) => Reply): void;
  /** Resolves once `count` requests reached `path` (rejects after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply === "hang") return;
  const write = () => res.writeHead(reply.status, reply.headers).end();
  if (reply.delayMs) setTimeout(write, reply.delayMs);
  else write();
}

/** A real HTTP server on 127.0.0.1 (free port) that records every webhook it receives. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const replies = new Map<string, (n: number) => Reply>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const path = req.url ?? "";
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString("utf8"));
      } catch {
        body = undefined;
      }
      received.push({ path, headers: req.headers, rawBody, body, at: Date.now() });
      const n = received.filter((r) => r.path === path).length;
      send(res, replies.get(path)?.(n) ?? { status: 200 });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    at,
    answer: (path, reply) => void replies.set(path, reply),
    waitFor: async (path, count, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (at(path).length < count) {
        if (Date.now() > deadline)
          throw new Error(`${path}: ${at(path).length} of ${count} webhook(s) after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return at(path);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
