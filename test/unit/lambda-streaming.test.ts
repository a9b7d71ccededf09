import { createServer, request } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { installLambdaStreamingRuntime, LocalResponseStream, STREAMING } from "#infra/local/lambda-streaming.ts";

/** Serves one request with `answer`, counting the writes that reach the server's socket; returns them and the client's view. */
async function serveOnce(answer: (stream: LocalResponseStream) => Promise<void>) {
  let socketWrites = 0;
  const server = createServer((_req, res) => {
    const socket = res.socket as Socket & { _writeGeneric(...args: unknown[]): unknown };
    const original = socket._writeGeneric.bind(socket);
    socket._writeGeneric = (...args: unknown[]) => {
      socketWrites++;
      return original(...args);
    };
    void answer(new LocalResponseStream(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const body = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    request({ port, host: "127.0.0.1" }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    })
      .on("error", reject)
      .end();
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { socketWrites, ...body };
}

describe("the local awslambda streaming runtime", () => {
  it("completes an awslambda object someone else created first (the AWS SDK's invoke store does)", async () => {
    await import("@aws-sdk/client-s3"); // loads @aws/lambda-invoke-store, which sets globalThis.awslambda = {}
    const g = globalThis as { awslambda?: Record<string, unknown> };
    expect(g.awslambda).toBeDefined();
    installLambdaStreamingRuntime();
    const runtime = g.awslambda as { streamifyResponse: (fn: object) => object; HttpResponseStream: { from: unknown } };
    expect(typeof runtime.streamifyResponse).toBe("function");
    expect(typeof runtime.HttpResponseStream.from).toBe("function");
    expect(STREAMING in runtime.streamifyResponse(async () => undefined)).toBe(true);
  });

  it("a body handed over whole goes to the socket with its head in one write; a streamed one as it comes", async () => {
    const whole = await serveOnce(async (stream) => {
      stream.sendHead({ statusCode: 201, headers: { "content-type": "application/pdf" } });
      await new Promise<void>((resolve) => stream.end(Buffer.from("%PDF-whole"), resolve));
    });
    expect(whole).toEqual({ socketWrites: 1, status: 201, text: "%PDF-whole" });

    const streamed = await serveOnce(async (stream) => {
      stream.sendHead({ statusCode: 200 });
      stream.write(Buffer.from("a"));
      await new Promise((resolve) => setTimeout(resolve, 5));
      stream.end(Buffer.from("b"));
    });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toBe("ab");
    expect(streamed.socketWrites).toBeGreaterThan(1);
  });
});
