import type { Protocol } from "puppeteer-core";
import { lengthToPx, type PageBox } from "./page-box.ts";
import type { GuardedPage } from "./page-guard.ts";
import type { DocumentLimits } from "./render-config.ts";
import { RenderError } from "./render-error.ts";

/**
 * Per-document limits on the Chromium side. The page cap is exact where it is cheap (the
 * print asks for pages 1 to cap+1, so an oversized document costs cap+1 pages of printing,
 * never all of them) and estimated where Chromium itself would take minutes: paginating
 * tens of thousands of forced page breaks grows with the square of their number (measured:
 * 5,000 → 0.7 s, 20,000 → 36 s for page 1 alone), so such documents are refused before
 * the print, from a count of the elements that force a break.
 */

/** `pageRanges` of the print: one page past the cap tells "too many" without printing the rest. */
export const cappedPageRanges = (limits: DocumentLimits) => `1-${limits.maxPages + 1}`;

/** Computed values of `break-before`/`break-after` that start a new page. */
const FORCED_BREAKS = new Set(["page", "always", "left", "right", "recto", "verso"]);
const ELEMENT_NODE = 1;
const SLASH = "/".charCodeAt(0);
const BANG = "!".charCodeAt(0);

export function pageLimitError(limits: DocumentLimits): RenderError {
  return new RenderError("PAGE_LIMIT_EXCEEDED", `the document has more than ${limits.maxPages} pages`, {
    limit: limits.maxPages,
  });
}

/** Checks what Chromium printed: its size, then (post-processed) its page count. */
export function checkPdfBytes(bytes: number, limits: DocumentLimits): void {
  if (bytes > limits.maxPdfBytes) {
    throw new RenderError("PDF_TOO_LARGE", `the PDF is larger than ${limits.maxPdfBytes} bytes`, {
      limit: limits.maxPdfBytes,
    });
  }
}

export function checkPageCount(pageCount: number, limits: DocumentLimits): void {
  if (pageCount > limits.maxPages) throw pageLimitError(limits);
}

/**
 * Elements a printed document may have before its forced breaks are counted. Below it,
 * Chromium paginates even a document of nothing but forced breaks in under a second, and
 * the capped print refuses it at page cap + 1 anyway; the count (per 1,000 elements: ~1 ms
 * in the page, ~12 ms where a DOM snapshot has to count) is only worth it where pagination
 * would take longer than that.
 */
export const PRINT_BREAK_CHECK_FROM = 5_000;

/**
 * Refuses a loaded document with more elements forcing a page break than pages allowed.
 * A document with at most `from` tags (default: the page cap, which it cannot exceed by
 * forced breaks) skips the count: one scan of the HTML string and no DevTools call.
 */
export async function checkForcedBreaks(
  guarded: GuardedPage,
  html: string,
  limits: DocumentLimits,
  from = limits.maxPages,
): Promise<void> {
  if (countTags(html, from) <= from) return;
  if ((await countForcedBreaks(guarded, html)) > limits.maxPages) throw pageLimitError(limits);
}

/**
 * The elements that force a page break, counted in the page: each element's computed style, read by
 * DevTools in the loaded document (20 ms for a 2,000-row invoice's 17,000 elements, where a DOM
 * snapshot with computed styles took 200 ms to build, send and read). The page runs no script of its
 * own, and the count calls the DOM through its prototypes: `<img name="querySelectorAll">` shadows
 * `document.querySelectorAll`, not `Document.prototype.querySelectorAll`. What the count cannot see,
 * the snapshot counts: closed shadow roots (declared in the HTML), and pseudo-elements, which may
 * force breaks too (a style rule with a pseudo-element and a break, or a style sheet it cannot read).
 */
export async function countForcedBreaks(guarded: GuardedPage, html: string): Promise<number> {
  const inPage = await countForcedBreaksInPage(guarded, html);
  if (inPage !== undefined) return inPage;
  const snapshot = await guarded.cdp.send("DOMSnapshot.captureSnapshot", {
    computedStyles: ["break-before", "break-after"],
  });
  return forcedBreaks(snapshot);
}

/** The in-page count, or undefined where only the DOM snapshot can count (see countForcedBreaks). */
export async function countForcedBreaksInPage(guarded: GuardedPage, html: string): Promise<number | undefined> {
  if (/shadowroot/i.test(html)) return undefined;
  const { result } = await guarded.cdp.send("Runtime.evaluate", { expression: COUNT_IN_PAGE, returnByValue: true });
  return typeof result.value === "number" ? result.value : undefined;
}

/** Evaluated in the print page: the count of laid-out elements with a forced break, or null (ask the snapshot). */
const COUNT_IN_PAGE = `(() => {
  try {
    const forced = new Set(${JSON.stringify([...FORCED_BREAKS])});
    const pseudoElement = /::|:(before|after|first-line|first-letter)\b/i;
    const sheets = Object.getOwnPropertyDescriptor(Document.prototype, "styleSheets").get.call(document);
    const rulesWithPseudoBreaks = (rules) => {
      for (let i = 0; i < rules.length; i++) {
        const rule = rules[i];
        if (rule instanceof CSSImportRule) {
          if (rule.styleSheet && rulesWithPseudoBreaks(rule.styleSheet.cssRules)) return true;
        } else if (rule instanceof CSSStyleRule && pseudoElement.test(rule.selectorText) && /break/i.test(rule.cssText)) {
          return true;
        } else if (rule.cssRules && rulesWithPseudoBreaks(rule.cssRules)) {
          return true;
        }
      }
      return false;
    };
    for (let i = 0; i < sheets.length; i++) if (rulesWithPseudoBreaks(sheets[i].cssRules)) return null;
    const elements = Document.prototype.querySelectorAll.call(document, "*");
    const rects = Element.prototype.getClientRects;
    let count = 0;
    for (let i = 0; i < elements.length; i++) {
      const style = getComputedStyle(elements[i]);
      if ((forced.has(style.breakBefore) || forced.has(style.breakAfter)) && rects.call(elements[i]).length > 0) count++;
    }
    return count;
  } catch {
    return null;
  }
})()`;

/**
 * Page estimate of a document laid out for the screen at paper width (the thumbnail's
 * layout): its height over the page's content height, plus its forced breaks.
 */
export async function checkThumbnailPages(
  guarded: GuardedPage,
  html: string,
  box: PageBox,
  limits: DocumentLimits,
): Promise<void> {
  await checkForcedBreaks(guarded, html, limits);
  const { cssContentSize } = await guarded.cdp.send("Page.getLayoutMetrics");
  const margins = lengthToPx(box.margin.top) + lengthToPx(box.margin.bottom);
  const pages = Math.ceil((cssContentSize.height - margins) / Math.max(1, box.heightPx - margins));
  if (pages > limits.maxPages) throw pageLimitError(limits);
}

/** Opening tags, counted only as far as `enough` (an upper bound of the elements). */
function countTags(html: string, enough: number): number {
  let count = 0;
  for (let at = html.indexOf("<"); at !== -1 && count <= enough; at = html.indexOf("<", at + 1)) {
    const next = html.charCodeAt(at + 1);
    if (next !== SLASH && next !== BANG) count++;
  }
  return count;
}

function forcedBreaks(snapshot: Protocol.DOMSnapshot.CaptureSnapshotResponse): number {
  const forced = new Set(snapshot.strings.flatMap((s, i) => (FORCED_BREAKS.has(s) ? [i] : [])));
  let count = 0;
  for (const doc of snapshot.documents) {
    const types = doc.nodes.nodeType ?? [];
    doc.layout.styles.forEach((styles, i) => {
      // Text nodes carry their parent's style: only elements count.
      if (types[doc.layout.nodeIndex[i]!] === ELEMENT_NODE && styles.some((s) => forced.has(s))) count++;
    });
  }
  return count;
}
