import { createServer, type ServerResponse } from "node:http";
import { basename } from "node:path";
import { type DevState, devPage, withText } from "./dev-page.ts";
import type { DevRender } from "./render-loop.ts";

/** Keeps an idle event stream open through proxies and tells a closed tab from an open one. */
const HEARTBEAT_MS = 15_000;

/** The preview server of `npm run design:dev`: the page, its event stream, the images and the PDF. */
export interface DevServer {
  url: string;
  rendering(version: number): void;
  rendered(render: DevRender): void;
  close(): Promise<void>;
}

/**
 * Serves the newest render on 127.0.0.1 (this machine only): `/` the page, `/events` its
 * Server-Sent Events (`state`, at once and on every change), `/state.json` the same state,
 * `/render/{version}/page-{n}.png` and `/render/{version}/document.pdf`. A request naming
 * any other Host than `127.0.0.1:<port>` or `localhost:<port>` is 403 (isOwnHost).
 */
export async function startDevServer(dir: string, port: number): Promise<DevServer> {
  const state: DevState = { folder: basename(dir) };
  let good: Extract<DevRender, { ok: true }> | undefined;
  const streams = new Set<ServerResponse>();
  const publish = () => {
    for (const res of streams) res.write(`event: state\ndata: ${JSON.stringify(state)}\n\n`);
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    // DNS rebinding: a page of another site whose name now points at 127.0.0.1 sends its own Host.
    if (!isOwnHost(req.headers.host, (server.address() as { port: number }).port))
      send(res, { status: 403, type: "text/plain", body: "unknown Host: open the address design:dev printed" });
    else if (req.method === "GET" && path === "/events") follow(res);
    else send(res, answer(req.method ?? "", path));
  });

  function answer(method: string, path: string): Answer {
    if (method !== "GET" && method !== "HEAD") return { status: 405, type: "text/plain", body: "GET only" };
    if (path === "/") return { status: 200, type: "text/html; charset=utf-8", body: devPage(state) };
    if (path === "/state.json") return { status: 200, type: "application/json", body: JSON.stringify(state) };
    const file = /^\/render\/(\d+)\/(?:page-(\d+)\.png|(document\.pdf))$/.exec(path);
    // Only the newest good render is kept: an older version's URL is gone.
    const body =
      file && good && Number(file[1]) === good.version
        ? file[3]
          ? good.pdf
          : good.pages[Number(file[2]) - 1]
        : undefined;
    if (!body) return { status: 404, type: "text/plain", body: "not found" };
    // Never cached: versions count from 1 again when the command restarts.
    return { status: 200, type: file![3] ? "application/pdf" : "image/png", body };
  }

  function follow(res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    res.write(`event: state\ndata: ${JSON.stringify(state)}\n\n`);
    streams.add(res);
    const beat = setInterval(() => res.write(": heartbeat\n\n"), HEARTBEAT_MS);
    res.once("close", () => {
      clearInterval(beat);
      streams.delete(res);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${bound}/`,
    rendering(version) {
      state.rendering = version;
      publish();
    },
    rendered(render) {
      if (render.ok) good = render;
      const last = good && {
        pageCount: good.pageCount,
        pages: good.pages.map((_, i) => `/render/${good!.version}/page-${i + 1}.png`),
        pdf: `/render/${good.version}/document.pdf`,
      };
      Object.assign(state, { rendering: undefined, version: render.version, at: render.at, ms: render.ms });
      Object.assign(state, last ?? { pageCount: undefined, pages: undefined, pdf: undefined });
      state.problems = render.ok ? [] : render.problems.map(withText);
      publish();
    },
    async close() {
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The only names this server answers to: `127.0.0.1:<port>` and `localhost:<port>`. Binding to
 * 127.0.0.1 keeps other machines out, not other sites: a page can rebind its own host name to
 * 127.0.0.1 and then read `/state.json` and the PDF as same-origin, with its own Host header.
 */
export function isOwnHost(host: string | undefined, port: number): boolean {
  const name = host?.toLowerCase();
  return name === `127.0.0.1:${port}` || name === `localhost:${port}`;
}

interface Answer {
  status: number;
  type: string;
  body: string | Buffer;
}

function send(res: ServerResponse, { status, type, body }: Answer): void {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}
