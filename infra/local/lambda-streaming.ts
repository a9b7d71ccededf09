import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { corsHeaders } from "#shared/http/cors.ts";

/** The marker the Lambda Node.js runtime puts on a `streamifyResponse` handler. */
export const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");

/** A response stream whose first act (HttpResponseStream.from) sends status and headers. */
export class LocalResponseStream extends Writable {
  readonly #res: ServerResponse;
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
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.#res.writableEnded) {
      done(); // the gateway answered already (time-out): nobody reads this
      return;
    }
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
