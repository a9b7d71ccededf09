import { Readable } from "node:stream";
import { crc32 } from "node:zlib";

/** One archive member: its name, its exact size and a way to read its bytes when its turn comes. */
export interface ZipSource {
  name: string;
  size: number;
  open(): Promise<AsyncIterable<Uint8Array>>;
}

const LOCAL_HEADER = 30;
const DATA_DESCRIPTOR = 16;
const CENTRAL_HEADER = 46;
const END_OF_CENTRAL = 22;
/** bit 3: sizes and CRC follow the data (known only after streaming); bit 11: UTF-8 names. */
const FLAGS = 0x0008 | 0x0800;

/** The archive's exact length, known before a byte is read (for Content-Length). */
export function zipLength(sources: Pick<ZipSource, "name" | "size">[]): number {
  return sources.reduce(
    (n, s) =>
      n +
      LOCAL_HEADER +
      Buffer.byteLength(s.name) +
      s.size +
      DATA_DESCRIPTOR +
      CENTRAL_HEADER +
      Buffer.byteLength(s.name),
    END_OF_CENTRAL,
  );
}

/**
 * A ZIP (method STORE: PDFs are already compressed) produced as a stream, one member at a
 * time: memory holds one chunk of one file, whatever the archive's size. Archives stay
 * below 4 GiB and 65,535 members (no ZIP64), far above a request's 100 files.
 */
export function zipStream(sources: ZipSource[], modified = new Date()): Readable {
  return Readable.from(generate(sources, dosDateTime(modified)));
}

async function* generate(sources: ZipSource[], stamp: { time: number; date: number }): AsyncGenerator<Buffer> {
  const central: Buffer[] = [];
  let offset = 0;
  for (const source of sources) {
    const name = Buffer.from(source.name, "utf8");
    yield localHeader(name, stamp);
    let crc = 0;
    let size = 0;
    for await (const chunk of await source.open()) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    if (size !== source.size) throw new Error(`zip member ${source.name}: expected ${source.size} bytes, read ${size}`);
    yield dataDescriptor(crc, size);
    central.push(centralHeader(name, stamp, crc, size, offset));
    offset += LOCAL_HEADER + name.length + size + DATA_DESCRIPTOR;
  }
  const directory = Buffer.concat(central);
  yield directory;
  yield endOfCentral(sources.length, directory.length, offset);
}

function localHeader(name: Buffer, stamp: { time: number; date: number }): Buffer {
  const b = Buffer.alloc(LOCAL_HEADER);
  b.writeUInt32LE(0x04034b50, 0);
  b.writeUInt16LE(20, 4); // version needed
  b.writeUInt16LE(FLAGS, 6);
  b.writeUInt16LE(0, 8); // STORE
  b.writeUInt16LE(stamp.time, 10);
  b.writeUInt16LE(stamp.date, 12);
  b.writeUInt16LE(name.length, 26);
  return Buffer.concat([b, name]);
}

function dataDescriptor(crc: number, size: number): Buffer {
  const b = Buffer.alloc(DATA_DESCRIPTOR);
  b.writeUInt32LE(0x08074b50, 0);
  b.writeUInt32LE(crc >>> 0, 4);
  b.writeUInt32LE(size, 8);
  b.writeUInt32LE(size, 12);
  return b;
}

function centralHeader(
  name: Buffer,
  stamp: { time: number; date: number },
  crc: number,
  size: number,
  offset: number,
): Buffer {
  const b = Buffer.alloc(CENTRAL_HEADER);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE(0x031e, 4); // made by: UNIX, spec 3.0
  b.writeUInt16LE(20, 6);
  b.writeUInt16LE(FLAGS, 8);
  b.writeUInt16LE(0, 10);
  b.writeUInt16LE(stamp.time, 12);
  b.writeUInt16LE(stamp.date, 14);
  b.writeUInt32LE(crc >>> 0, 16);
  b.writeUInt32LE(size, 20);
  b.writeUInt32LE(size, 24);
  b.writeUInt16LE(name.length, 28);
  b.writeUInt32LE((0o100644 << 16) >>> 0, 38); // regular file, rw-r--r--
  b.writeUInt32LE(offset, 42);
  return Buffer.concat([b, name]);
}

function endOfCentral(count: number, directorySize: number, directoryOffset: number): Buffer {
  const b = Buffer.alloc(END_OF_CENTRAL);
  b.writeUInt32LE(0x06054b50, 0);
  b.writeUInt16LE(count, 8);
  b.writeUInt16LE(count, 10);
  b.writeUInt32LE(directorySize, 12);
  b.writeUInt32LE(directoryOffset, 16);
  return b;
}

function dosDateTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((Math.max(1980, d.getUTCFullYear()) - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}
