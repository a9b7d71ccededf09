/**
 * Noto Sans JP maps the Kangxi radicals (U+2F00–U+2FDF) and the unified ideographs to the
 * same glyphs, e.g. ⽇ U+2F47 and 日 U+65E5. Skia writes the lowest code point of a glyph
 * into the PDF's ToUnicode CMap, so 日, 月, 金, 一, 人 … would be copied and searched as
 * radicals. This rewrites such targets to their NFKC form (the ideograph).
 */
const RADICAL_FIRST = 0x2e80;
const RADICAL_LAST = 0x2fdf;
const MAX_ENTRIES_PER_BLOCK = 100; // PDF 32000-1 9.10.3: at most 100 per bfchar block

const isRadical = (code: number) => code >= RADICAL_FIRST && code <= RADICAL_LAST;

/**
 * Returns the CMap text with radical targets replaced by ideographs, or `undefined` when
 * nothing needed changing. bfrange entries touching radicals become bfchar entries.
 */
export function fixRadicalsInToUnicode(cmap: string): string | undefined {
  let changed = false;
  const extraChars: string[] = [];
  let text = cmap.replace(/beginbfchar([\s\S]*?)endbfchar/g, (_block, body: string) => {
    const fixedBody = body.replace(/<([0-9A-Fa-f]+)>(\s*)<([0-9A-Fa-f]+)>/g, (entry, src, space, dst) => {
      const fixed = normalizeTarget(dst);
      if (fixed === undefined) return entry;
      changed = true;
      return `<${src}>${space}<${fixed}>`;
    });
    return `beginbfchar${fixedBody}endbfchar`;
  });
  text = text.replace(/(\d+)\s+beginbfrange([\s\S]*?)endbfrange\s*/g, (block, _count, body: string) => {
    if (body.includes("[")) return block; // array targets: Skia never writes them, leave as is
    const kept: string[] = [];
    for (const line of body.match(/<[0-9A-Fa-f]+>\s*<[0-9A-Fa-f]+>\s*<[0-9A-Fa-f]+>/g) ?? []) {
      const expanded = expandRangeIfRadical(line);
      if (expanded) extraChars.push(...expanded);
      else kept.push(line);
    }
    if (kept.length === 0) return "";
    return `${kept.length} beginbfrange\n${kept.join("\n")}\nendbfrange\n`;
  });
  if (extraChars.length === 0) return changed ? text : undefined;
  return text.replace(/endcmap/, `${bfcharBlocks(extraChars)}endcmap`);
}

/** A single-code-unit target (what Skia writes for BMP glyphs) mapped to its ideograph. */
function normalizeTarget(hex: string): string | undefined {
  if (hex.length !== 4) return undefined;
  const code = Number.parseInt(hex, 16);
  if (!isRadical(code)) return undefined;
  const normalized = String.fromCharCode(code).normalize("NFKC");
  if (normalized.length !== 1 || normalized.charCodeAt(0) === code) return undefined;
  return toHex4(normalized.charCodeAt(0));
}

/** `<lo> <hi> <dst>` as bfchar lines if any target in it is a radical, else undefined. */
function expandRangeIfRadical(line: string): string[] | undefined {
  const [lo, hi, dst] = (line.match(/[0-9A-Fa-f]+/g) ?? []).map((hex) => Number.parseInt(hex, 16));
  if (lo === undefined || hi === undefined || dst === undefined) return undefined;
  const dstHex = line.slice(line.lastIndexOf("<") + 1, line.lastIndexOf(">"));
  if (dstHex.length !== 4 || dst + (hi - lo) < RADICAL_FIRST || dst > RADICAL_LAST) return undefined;
  const lines: string[] = [];
  for (let offset = 0; offset <= hi - lo; offset++) {
    const target = toHex4(dst + offset);
    lines.push(`<${toHex4(lo + offset)}> <${normalizeTarget(target) ?? target}>`);
  }
  return lines;
}

function bfcharBlocks(lines: string[]): string {
  let out = "";
  for (let i = 0; i < lines.length; i += MAX_ENTRIES_PER_BLOCK) {
    const chunk = lines.slice(i, i + MAX_ENTRIES_PER_BLOCK);
    out += `${chunk.length} beginbfchar\n${chunk.join("\n")}\nendbfchar\n`;
  }
  return out;
}

function toHex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}
