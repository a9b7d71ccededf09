import { deflateSync } from "node:zlib";

/**
 * A small ICC v2 display profile of sRGB (IEC 61966-2-1), built here rather than shipped as a
 * file: the colour space is a published formula (its primaries, D50-adapted as every ICC
 * profile's colorants are, and its tone curve), so nothing with a copyright or a licence comes
 * along, and no file has to be found at run time. PDF/A's OutputIntent carries it
 * (shared/render/README.md#pdfa-and-embedded-files). Tags: desc, cprt, wtpt, rXYZ/gXYZ/bXYZ and
 * one 1,024-entry `curv` shared by rTRC/gTRC/bTRC, as the ICC.1:2001 spec asks of an RGB matrix/TRC
 * display profile.
 */
export const SRGB_DESCRIPTION = "sRGB IEC61966-2.1";

const D50: Xyz = [0.9642, 1, 0.8249];
// sRGB's primaries adapted to D50 (Bradford), the values of the common v2 sRGB profiles.
const RED: Xyz = [0.436065, 0.222488, 0.013916];
const GREEN: Xyz = [0.385147, 0.716873, 0.097076];
const BLUE: Xyz = [0.143066, 0.060608, 0.714096];
const CURVE_POINTS = 1024;

type Xyz = [number, number, number];

let cached: { profile: Buffer; deflated: Buffer } | undefined;

/** The profile's bytes and their Flate encoding (built once per process, ~3 KB). */
export function srgbIccProfile(): { profile: Buffer; deflated: Buffer } {
  if (!cached) {
    const profile = buildProfile();
    cached = { profile, deflated: deflateSync(profile) };
  }
  return cached;
}

function buildProfile(): Buffer {
  const curve = curveTag();
  const tags: [string, Buffer][] = [
    ["desc", descTag(SRGB_DESCRIPTION)],
    ["cprt", textTag("No copyright, use freely")],
    ["wtpt", xyzTag(D50)],
    ["rXYZ", xyzTag(RED)],
    ["gXYZ", xyzTag(GREEN)],
    ["bXYZ", xyzTag(BLUE)],
    ["rTRC", curve],
    ["gTRC", curve],
    ["bTRC", curve],
  ];
  const tableEnd = 128 + 4 + tags.length * 12;
  const table = Buffer.alloc(4 + tags.length * 12);
  table.writeUInt32BE(tags.length, 0);
  const data: Buffer[] = [];
  const placed = new Map<Buffer, number>();
  let offset = tableEnd;
  tags.forEach(([signature, body], i) => {
    let at = placed.get(body); // the three TRC tags share one curve
    if (at === undefined) {
      at = offset;
      placed.set(body, at);
      const padded = Buffer.alloc(Math.ceil(body.length / 4) * 4);
      body.copy(padded);
      data.push(padded);
      offset += padded.length;
    }
    table.write(signature, 4 + i * 12, "latin1");
    table.writeUInt32BE(at, 8 + i * 12);
    table.writeUInt32BE(body.length, 12 + i * 12);
  });
  const header = headerOf(offset);
  return Buffer.concat([header, table, ...data]);
}

function headerOf(size: number): Buffer {
  const header = Buffer.alloc(128);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(0x02100000, 8); // version 2.1
  header.write("mntrRGB XYZ ", 12, "latin1"); // display class, RGB data, XYZ connection space
  for (const [i, n] of [2026, 1, 1, 0, 0, 0].entries()) header.writeUInt16BE(n, 24 + i * 2); // fixed: same bytes every build
  header.write("acsp", 36, "latin1");
  writeXyz(header, 68, D50); // the connection space's illuminant
  return header;
}

function descTag(text: string): Buffer {
  const ascii = Buffer.from(`${text}\0`, "latin1");
  const tag = Buffer.alloc(12 + ascii.length + 4 + 4 + 2 + 1 + 67); // no Unicode or ScriptCode text
  tag.write("desc", 0, "latin1");
  tag.writeUInt32BE(ascii.length, 8);
  ascii.copy(tag, 12);
  return tag;
}

function textTag(text: string): Buffer {
  return Buffer.concat([Buffer.from("text\0\0\0\0", "latin1"), Buffer.from(`${text}\0`, "latin1")]);
}

function xyzTag(xyz: Xyz): Buffer {
  const tag = Buffer.alloc(20);
  tag.write("XYZ ", 0, "latin1");
  writeXyz(tag, 8, xyz);
  return tag;
}

/** sRGB's piecewise tone curve (linear toe, then a 2.4 power), sampled for linear interpolation. */
function curveTag(): Buffer {
  const tag = Buffer.alloc(12 + CURVE_POINTS * 2);
  tag.write("curv", 0, "latin1");
  tag.writeUInt32BE(CURVE_POINTS, 8);
  for (let i = 0; i < CURVE_POINTS; i++) {
    const v = i / (CURVE_POINTS - 1);
    const linear = v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    tag.writeUInt16BE(Math.round(linear * 65535), 12 + i * 2);
  }
  return tag;
}

/** s15Fixed16Number triplet. */
function writeXyz(target: Buffer, at: number, xyz: Xyz): void {
  for (const [i, v] of xyz.entries()) target.writeInt32BE(Math.round(v * 65536), at + i * 4);
}
