import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayProxyResult } from "aws-lambda";
import { setClockOffset } from "#shared/clock.ts";
import { corsHeaders, preflightHeaders } from "#shared/http/cors-headers.ts";
import { frontEndFor, functions, type RouteDefinition, routes } from "#shared/definitions/index.ts";
import { inInvocation } from "./invocation-scope.ts";
import { LocalResponseStream, STREAMING, installLambdaStreamingRuntime } from "./lambda-streaming.ts";
import { type AnyHandler, lambdaContext, loadHandler } from "./load-handler.ts";
import { PRESIGNED_S3_PREFIX, servePresignedGet } from "./presigned-s3.ts";
import { toProxyEvent } from "./proxy-event.ts";
import { answerClientError } from "./client-error.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { answerGatewayError, answerStarting } from "./starting-answer.ts";
import { serveStaticAsset } from "./static-files.ts";

/** shared/limits/README.md#service-limits: bodies over 50 MB are refused by the layer in front of the API. */
export const MAX_BODY_BYTES = 50 * 1024 * 1024;
const DRAIN_AFTER_413_MS = 10_000;

interface CompiledRoute {
  route: RouteDefinition;
  resource: string;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = routes.map((route) => {
  const resource = `/v1${route.path}`;
  const names: string[] = [];
  const source = resource.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route, resource, pattern: new RegExp(`^${source}$`), names };
});

export interface GatewayOptions {
  port: number;
  host?: string;
  testHooks?: boolean;
  /** Scales every integration time-out (tests of the 60 s sync limit use a smaller one). */
  timeoutScale?: number;
}

/**
 * The local API Gateway: serves the shared route table, turns each request into a REST
 * proxy event for the real handler, answers CORS preflights, 404/405 for unknown routes,
 * 413 above 50 MB (without buffering the oversized body), 431 for a head over 16 KB (client-error.ts) and 504
 * past the integration time-out.
 */
/** How long an idle keep-alive connection stays open. */
const KEEP_ALIVE_MS = 65_000;

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  installLambdaStreamingRuntime(); // before any handler module loads, as in the Lambda runtime
  let ready = false;
  const server = createServer((req, res) => {
    if (!ready) return answerStarting(req, res);
    handle(req, res, opts).catch((err) => {
      console.error(JSON.stringify({ level: "error", msg: "gateway failure", error: String(err?.stack ?? err) }));
      if (!res.headersSent)
        send(res, 502, { "Content-Type": "application/json" }, Buffer.from('{"message":"Internal server error"}'));
    });
  });
  server.requestTimeout = 0; // the integration time-out below decides
  // Idle keep-alive connections stay open 65 s, as behind a load balancer, not Node's 5 s: a client
  // whose event loop was busy past its own 4 s reuse limit (a test decoding a PDF synchronously)
  // could otherwise send its next request on a connection the gateway was closing at that moment
  // ("other side closed"). Clients still learn the limit from the Keep-Alive header.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  server.on("clientError", answerClientError); // a head over 16 KB: 431 with the error body and CORS
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host ?? "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    markReady: () => {
      ready = true;
    },
    // A clean stop lets running invocations finish first (a sync answer's storing included).
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.race([
        invocations.settled(),
        new Promise((resolve) => setTimeout(resolve, DRAIN_ON_CLOSE_MS).unref()),
      ]);
      server.closeAllConnections();
      await closed;
    },
  };
}

export interface Gateway {
  server: Server;
  port: number;
  /** Until called, every request is answered 503 SERVICE_STARTING (tables, seed data and local.json are not there yet). */
  markReady(): void;
  close(): Promise<void>;
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: GatewayOptions): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (opts.testHooks && url.pathname.startsWith("/__local/")) return testHook(req, res, url);
  // What S3 answers in AWS: presigned GETs of large request ZIPs (shared/generation/http/archive-link.ts).
  if (url.pathname.startsWith(PRESIGNED_S3_PREFIX)) return servePresignedGet(req, res, url);
  if (req.method === "OPTIONS") return send(res, 204, preflightHeaders, Buffer.alloc(0));
  const candidates = compiled.filter((c) => c.pattern.test(url.pathname));
  const match = candidates.find((c) => c.route.method === req.method);
  const frontEnd = candidates.length ? undefined : frontEndFor(url.pathname, (fn) => fn in functions);
  // The site's built scripts, which a bucket behind CloudFront serves in AWS (static-files.ts).
  if (frontEnd?.function === "site" && (await serveStaticAsset(req, res, url))) return;
  if (frontEnd) return serveFrontEnd(req, res, url, frontEnd.function, opts);
  if (!match) {
    if (!candidates.length) return answerGatewayError(req, res, new PlatenError("NOT_FOUND"));
    const allow = [...new Set(candidates.map((c) => c.route.method)), "OPTIONS"].join(", ");
    return answerGatewayError(req, res, new PlatenError("METHOD_NOT_ALLOWED"), { Allow: allow });
  }
  const body = await readBody(req, res);
  if (!body) return;
  const values = match.pattern.exec(url.pathname)!.slice(1);
  const pathParameters = match.names.length
    ? Object.fromEntries(match.names.map((n, i) => [n, safeDecode(values[i]!)]))
    : null;
  const event = toProxyEvent(req, url, body, { resource: match.resource, pathParameters });
  const started = Date.now();
  const handler = await loadHandler(match.route.function);
  const end = invocations.begin();
  try {
    if (STREAMING in handler) {
      await invokeStreaming(handler, match.route, event, res, opts.timeoutScale ?? 1);
      if (!match.route.quiet) accessLog(req, url, res.statusCode, Date.now() - started);
      return;
    }
    const result = await invokeWithTimeout(
      match.route,
      event,
      (opts.timeoutScale ?? 1) * match.route.timeoutSeconds * 1000,
    );
    writeResult(res, result);
    if (!match.route.quiet) accessLog(req, url, result.statusCode, Date.now() - started);
  } finally {
    end();
  }
}

/** The `{proxy+}` integration of a front end's own proxy API (infra/stack/frontends.ts): the function routes itself. */
async function serveFrontEnd(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  fn: string,
  opts: GatewayOptions,
): Promise<void> {
  const body = await readBody(req, res);
  if (!body) return;
  const proxy = url.pathname.replace(/^\//, "");
  const event = toProxyEvent(req, url, body, { resource: "/{proxy+}", pathParameters: proxy ? { proxy } : null });
  const timeoutSeconds = (functions as Record<string, { timeoutSeconds: number }>)[fn]!.timeoutSeconds;
  const route: RouteDefinition = {
    method: "GET",
    path: url.pathname,
    function: fn as RouteDefinition["function"],
    rateClass: "none",
    auth: "none",
    timeoutSeconds,
  };
  const handler = await loadHandler(fn);
  const end = invocations.begin();
  const started = Date.now();
  try {
    // Front ends set their own headers (oidc-provider its CORS: one Allow-Origin, never two).
    if (STREAMING in handler) await invokeStreaming(handler, route, event, res, opts.timeoutScale ?? 1);
    else
      writeResult(
        res,
        await invokeWithTimeout(route, event, (opts.timeoutScale ?? 1) * route.timeoutSeconds * 1000),
        false,
      );
    accessLog(req, url, res.statusCode, Date.now() - started);
  } finally {
    end();
  }
}

/** A response-streaming handler writes straight into the HTTP response; the integration time-out applies until it starts. */
async function invokeStreaming(
  handler: AnyHandler,
  route: RouteDefinition,
  event: { requestContext: { requestId: string } },
  res: ServerResponse,
  timeoutScale: number,
) {
  const stream = new LocalResponseStream(res);
  const context = lambdaContext(route.function, timeoutScale * route.timeoutSeconds, event.requestContext.requestId);
  // API Gateway's integration time-out, until the response starts; the handler runs on, as in AWS.
  const timeout = setTimeout(
    () => {
      if (!res.headersSent) sendJson(res, 504, { message: "Endpoint request timed out" });
    },
    timeoutScale * route.timeoutSeconds * 1000,
  );
  try {
    const streaming = handler as unknown as (e: unknown, s: LocalResponseStream, c: unknown) => Promise<void>;
    await inInvocation(context.awsRequestId, () => streaming(event, stream, context));
  } catch (err) {
    if (!res.headersSent) sendJson(res, 502, { message: "Internal server error" });
    else res.destroy(err as Error); // mid-body failure: the client sees a truncated transfer, never a wrong file
  } finally {
    clearTimeout(timeout);
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

async function invokeWithTimeout(
  route: RouteDefinition,
  event: unknown,
  timeoutMs: number,
): Promise<APIGatewayProxyResult> {
  const handler = await loadHandler(route.function);
  const requestId = (event as { requestContext: { requestId: string } }).requestContext.requestId;
  const context = lambdaContext(route.function, timeoutMs / 1000, requestId);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<APIGatewayProxyResult>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          statusCode: 504,
          headers: { "Content-Type": "application/json" },
          body: '{"message":"Endpoint request timed out"}',
        }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      inInvocation(requestId, () => handler(event, context)) as Promise<APIGatewayProxyResult>,
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads the body, refusing early (Content-Length) or as soon as the stream passes 50 MB. */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  const tooLarge = () => {
    // Answer at once, then discard what the client is still sending so it can read the 413
    // (closing right away makes many clients fail with EPIPE and never see it, RFC 9112 §9.6);
    // the discarding is bounded in time so nobody can keep the socket busy for ever.
    sendJson(res, 413, { message: "Request Entity Too Large" });
    req.resume();
    const cutoff = setTimeout(() => req.socket.destroy(), DRAIN_AFTER_413_MS);
    req.once("end", () => clearTimeout(cutoff));
  };
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
    tooLarge();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off("data", onData);
        chunks.length = 0;
        tooLarge();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** `withCors: false` for proxy APIs whose function answers CORS itself (the auth function, as in AWS). */
function writeResult(res: ServerResponse, result: APIGatewayProxyResult, withCors = true): void {
  const headers: Record<string, string | string[]> = withCors ? { ...corsHeaders } : {};
  // The gateway sets Content-Length itself, as API Gateway does (a handler's own would be a duplicate).
  const own = (k: string) => k.toLowerCase() !== "content-length";
  for (const [k, v] of Object.entries(result.headers ?? {})) if (own(k)) headers[k] = String(v);
  for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) if (own(k)) headers[k] = v.map(String);
  const body = Buffer.from(result.body ?? "", result.isBase64Encoded ? "base64" : "utf8");
  send(res, result.statusCode, headers, body);
}

function send(res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: Buffer): void {
  res.writeHead(status, { ...headers, "Content-Length": String(body.length) });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, json: unknown, extra: Record<string, string> = {}): void {
  send(
    res,
    status,
    { ...corsHeaders, "Content-Type": "application/json; charset=utf-8", ...extra },
    Buffer.from(JSON.stringify(json)),
  );
}

function accessLog(req: IncomingMessage, url: URL, status: number, ms: number): void {
  if (process.env.PLATEN_ACCESS_LOG === "0") return;
  console.log(`${new Date().toISOString()} ${req.method} ${url.pathname} ${status} ${ms}ms`);
}

/** How long a clean stop waits for running invocations. */
const DRAIN_ON_CLOSE_MS = 10_000;

/**
 * Invocations running, including a sync generation's work after its answer (storing the
 * PDFs): `/__local/settled` waits for none to be left, so a test can read the stores.
 */
const invocations = (() => {
  let running = 0;
  const waiters: (() => void)[] = [];
  return {
    /** Counts one invocation in; the returned function counts it out. */
    begin(): () => void {
      running += 1;
      return () => {
        running -= 1;
        if (running === 0) for (const wake of waiters.splice(0)) wake();
      };
    },
    settled: (): Promise<void> =>
      running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)),
  };
})();

/** The AWS calls counted since the bench asked (`/__local/aws-calls`); undefined until it first does. */
let awsCalls: import("./aws-calls.ts").AwsCalls | undefined;

/**
 * Test-only hooks (PLATEN_TEST_HOOKS=1): move the service clock, read the renderer's pool, arm
 * faults (`POST /__local/faults` with `{rules}`; `{}` reads the hits), run the sweeper now,
 * wait for invocations to end, count the AWS calls.
 */
async function testHook(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const body = await readBody(req, res);
  if (!body) return;
  if (url.pathname === "/__local/renderer" && req.method === "GET") {
    const { sharedRendererStats } = await import("#shared/render/renderer.ts");
    return sendJson(res, 200, sharedRendererStats() ?? { browsers: 0, busy: 0, queued: 0, renders: 0 });
  }
  if (url.pathname === "/__local/clock" && req.method === "POST") {
    const { offsetMs } = JSON.parse(body.toString("utf8") || "{}") as { offsetMs?: number };
    setClockOffset(Number(offsetMs) || 0);
    return sendJson(res, 200, { offsetMs: Number(offsetMs) || 0 });
  }
  if (url.pathname === "/__local/faults" && req.method === "POST") {
    const { armFaults, faultHits } = await import("#shared/aws/fault-injection.ts");
    const { rules } = JSON.parse(body.toString("utf8") || "{}") as { rules?: Parameters<typeof armFaults>[0] };
    if (rules) armFaults(rules);
    return sendJson(res, 200, { hits: faultHits() });
  }
  if (url.pathname === "/__local/sweep" && req.method === "POST") {
    const { runSweep } = await import("./sweeper.ts");
    return sendJson(res, 200, await runSweep());
  }
  if (url.pathname === "/__local/aws-calls") {
    // The bench's count of what this process asks of AWS (calls, request units, SQS messages): POST starts
    // it anew, GET reads it.
    const { countAwsCalls } = await import("./aws-calls.ts");
    awsCalls ??= countAwsCalls();
    if (req.method === "POST") Object.assign(awsCalls, { calls: {}, wru: 0, rru: 0, messages: 0 });
    return sendJson(res, 200, awsCalls);
  }
  if (url.pathname === "/__local/settled" && req.method === "POST") {
    await invocations.settled();
    return sendJson(res, 200, { settled: true });
  }
  return sendJson(res, 404, { message: "unknown test hook" });
}
