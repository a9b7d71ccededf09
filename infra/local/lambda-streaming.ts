import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { corsHeaders } from "#shared/http/cors-headers.ts";

/** The marker the Lambda Node.js runtime puts on a `streamifyResponse` handler. */
export const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");

/** A response stream whose first act (HttpResponseStream.from) sends status and headers. */
export class LocalResponseStream extends Writable {
  readonly #res: ServerResponse;
  /** Whether a body chunk went through `_write` (then `end` is the stream's own). */
  #wrote = false;
  constructor(res: ServerResponse) {
    super();
    this.#res = res;
  }
  /** API Gateway's streaming prelude also carries `multiValueHeaders` (several Set-Cookie lines). */
  sendHead(metadata: {
    statusCode?: number;
    headers?: Record<string, string>;
    multiValueHeaders?: Record<string, string[]>;
  }): void {
    if (!this.#res.headersSent)
      this.#res.writeHead(metadata.statusCode ?? 200, {
        ...corsHeaders,
        ...metadata.headers,
        ...metadata.multiValueHeaders,
      });
  }
  /**
   * A body handed over whole (`end(bytes)`: a sync answer's PDF, an error body) goes to the
   * socket with its head and the chunked terminator in one write, instead of a write per part
   * a turn apart (each a wake-up of the client).
   */
  override end(chunk?: unknown, encoding?: unknown, cb?: unknown): this {
    if (Buffer.isBuffer(chunk) && !this.#wrote && !this.#res.writableEnded) {
      this.sendHead({});
      this.#res.end(chunk);
      return typeof encoding === "function" ? super.end(encoding as () => void) : super.end(cb as () => void);
    }
    return super.end(chunk, encoding as BufferEncoding, cb as () => void);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.#res.writableEnded) {
      done(); // the gateway answered already (time-out): nobody reads this
      return;
    }
    this.#wrote = true;
    this.sendHead({});
    this.#res.write(chunk, done);
  }
  override _final(done: (err?: Error | null) => void): void {
    if (this.#res.writableEnded) {
      done();
      return;
    }
    this.sendHead({});
    this.#res.end(done);
  }
}

/**
 * Installs the `awslambda` global the Lambda runtime provides, so handlers written for
 * response streaming stream through the local gateway exactly as through API Gateway.
 */
export function installLambdaStreamingRuntime(): void {
  // The AWS SDK (its invoke store) creates an empty `awslambda` object when it loads, so
  // the members are added to whatever is there, not only to a missing global.
  const g = globalThis as { awslambda?: Record<string, unknown> };
  g.awslambda ??= {};
  if (typeof g.awslambda.streamifyResponse === "function") return;
  Object.assign(g.awslambda, {
    streamifyResponse: <T extends object>(fn: T): T => Object.assign(fn, { [STREAMING]: "response" }),
    HttpResponseStream: {
      from: (stream: LocalResponseStream, metadata: Parameters<LocalResponseStream["sendHead"]>[0]) => {
        stream.sendHead(metadata);
        return stream;
      },
    },
  });
}
