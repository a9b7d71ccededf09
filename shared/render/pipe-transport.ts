import type { Readable, Writable } from "node:stream";
import type { ConnectionTransport } from "puppeteer-core";

/**
 * DevTools over Chromium's `--remote-debugging-pipe` (fd 3 in, fd 4 out): JSON messages
 * each ended by a NUL byte. puppeteer has the same class but keeps it out of its public
 * API; its `ConnectionTransport` interface is public, so this is what `connect` takes.
 */
export class DevToolsPipe implements ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
  #pending: Buffer[] = [];
  #closed = false;

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    fromBrowser.on("data", (chunk: Buffer) => this.#receive(chunk));
    fromBrowser.once("close", () => this.onclose?.());
  }

  send(message: string): void {
    if (this.#closed) return;
    this.toBrowser.write(message);
    this.toBrowser.write("\0");
  }

  close(): void {
    this.#closed = true;
  }

  #receive(chunk: Buffer): void {
    if (this.#closed) return;
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      const message = Buffer.concat([...this.#pending, chunk.subarray(start, end)]).toString();
      this.#pending = [];
      // Like puppeteer's transport: one message per macrotask, so handlers never nest.
      setImmediate(() => this.onmessage?.(message));
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.#pending.push(chunk.subarray(start));
  }
}
