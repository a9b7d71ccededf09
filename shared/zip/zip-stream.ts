import { Readable } from "node:stream";
import { ZipFile } from "yazl";

/** One archive member: its name, its exact size and a way to read its bytes when its turn comes. */
export interface ZipSource {
  name: string;
  size: number;
  open(): Promise<AsyncIterable<Uint8Array> | Iterable<Uint8Array>>;
}

/** A ZIP to be read, and its exact length (for Content-Length), known before a byte is read. */
export interface ZipArchive {
  stream: Readable;
  length: number;
}

/** rw-r--r-- regular file, as unzip restores it. */
const FILE_MODE = 0o100644;

/**
 * A ZIP written by yazl as a stream, one member at a time: memory holds a chunk of one file,
 * whatever the archive's size. Members are stored, not deflated (PDFs are already
 * compressed), which is also what lets yazl tell the length up front; past 4 GiB or 65,535
 * members it switches to ZIP64 by itself. Writer chosen by measurement: shared/zip/README.md.
 */
export async function zipArchive(sources: ZipSource[], modified = new Date()): Promise<ZipArchive> {
  const zip = new ZipFile();
  // yazl starts on its first member at end(): members open only once the archive is read,
  // so an archive dropped unread (one already stored in S3) reads no file.
  let startReading!: () => void;
  const reading = new Promise<void>((resolve) => {
    startReading = resolve;
  });
  const output = zip.outputStream as Readable;
  zip.on("error", (err) => output.destroy(err));
  let current: Readable | undefined;
  for (const source of sources) {
    const options = { size: source.size, compress: false, mtime: modified, mode: FILE_MODE };
    zip.addReadStreamLazy(source.name, options, (done) => {
      reading
        .then(() => source.open())
        .then((chunks) => {
          current = Readable.from(chunks, { objectMode: false });
          // yazl listens for no error on a lazily opened stream: a failed read (an S3 body
          // cut off) must fail the archive, not the process.
          current.on("error", (err) => output.destroy(err));
          done(null, current);
        }, done);
    });
  }
  const length = await new Promise<number>((resolve) => zip.end({}, resolve));
  return { stream: Readable.from(readOnceAsked(output, startReading, () => current)), length };
}

async function* readOnceAsked(output: Readable, start: () => void, current: () => Readable | undefined) {
  start();
  try {
    yield* output;
  } finally {
    // A reader that stops early (a client gone) must not leave the member's S3 body open.
    current()?.destroy();
  }
}

/** The whole archive in memory, for an answer that is one buffer (the sync ZIP of at most 100 PDFs). */
export async function zipBuffer(files: { name: string; body: Uint8Array }[]): Promise<Buffer> {
  const sources = files.map((f) => ({ name: f.name, size: f.body.length, open: async () => [f.body] }));
  const { stream } = await zipArchive(sources);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
