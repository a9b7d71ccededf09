/**
 * Types for the part of yazl 3 that zip-stream.ts and the design bundle export use. `@types/yazl` types the
 * `end()` callback without its argument, the archive's length, which is what we need.
 */
declare module "yazl" {
  interface ReadStreamOptions {
    size: number;
    mtime: Date;
    mode: number;
    compress: boolean;
  }
  export class ZipFile {
    outputStream: NodeJS.ReadableStream & { destroy(error?: Error): void };
    addReadStreamLazy(
      metadataPath: string,
      options: Partial<ReadStreamOptions>,
      open: (cb: (err: Error | null, stream?: NodeJS.ReadableStream) => void) => void,
    ): void;
    addBuffer(buffer: Buffer, metadataPath: string, options?: Partial<ReadStreamOptions>): void;
    /** `calculatedTotalSize` is the exact length when every entry is stored with a known size, else -1. */
    end(options?: object, calculatedTotalSizeCallback?: (calculatedTotalSize: number) => void): void;
    on(event: "error", listener: (err: Error) => void): this;
  }
}
