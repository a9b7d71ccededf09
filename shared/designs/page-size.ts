/**
 * The paper a design prints on, as design.json gives it (shared/designs/README.md): a named size turned
 * by the orientation, or a custom width and height, with margins. One place for the lengths the
 * schema accepts and the renderer resolves (shared/render/page-box.ts).
 */

/** A length of design.json's page and margins: a number and mm, cm, in or px (96 px to the inch). */
export const PAGE_LENGTH = /^\d+(\.\d+)?(mm|cm|in|px)$/;

const MM_PER_UNIT: Record<string, number> = { mm: 1, cm: 10, in: 25.4, px: 25.4 / 96 };

/** A page length in millimetres; NaN for text that is not one. */
export function lengthToMm(length: string): number {
  const match = /^(\d+(?:\.\d+)?)(mm|cm|in|px)$/.exec(length);
  return match ? Number(match[1]) * (MM_PER_UNIT[match[2] as string] ?? Number.NaN) : Number.NaN;
}

/**
 * Bounds of a custom page's width and height, in millimetres: 1 cm, a small label, to 5 m, under the
 * PDF's own page limit of 200 in (5,080 mm) that viewers hold to. Beyond them a page printed nothing
 * useful and made the thumbnail fail (`width: 1px, height: 99999in` ran 29 s into a 500).
 */
export const PAGE_LENGTH_MM = { min: 10, max: 5000 } as const;

/** Named sizes in mm, portrait: ISO A and B (B as CSS `@page` names them: 176×250, not JIS B), Letter, Legal. */
export const NAMED_SIZES_MM = {
  A3: [297, 420],
  A4: [210, 297],
  A5: [148, 210],
  A6: [105, 148],
  B4: [250, 353],
  B5: [176, 250],
  Letter: [215.9, 279.4],
  Legal: [215.9, 355.6],
} as const satisfies Record<string, readonly [number, number]>;

export type NamedSize = keyof typeof NAMED_SIZES_MM;

/**
 * Width and height of a page in mm: the custom ones taken literally, else the named size turned by
 * the orientation (a custom landscape page is given as width > height).
 */
export function pageMm(page: {
  size: NamedSize;
  orientation: "portrait" | "landscape";
  width?: string;
  height?: string;
}): { width: number; height: number } {
  if (page.width && page.height) return { width: lengthToMm(page.width), height: lengthToMm(page.height) };
  const [w, h] = NAMED_SIZES_MM[page.size];
  return page.orientation === "landscape" ? { width: h, height: w } : { width: w, height: h };
}
