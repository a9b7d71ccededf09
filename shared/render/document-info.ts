import type { PdfMetadata } from "#shared/designs/bundle-schema.ts";

/** What post-processing writes into the Info dictionary besides `rf:params`. */
export interface DocumentInfo {
  title: string;
  author?: string;
  subject?: string;
  keywords?: string[];
}

/**
 * The request's metadata over the design's, field by field (a request naming only an author keeps the
 * design's subject); the Title falls back to the file name, as it always did.
 */
export function documentInfo(
  fileTitle: string,
  design: PdfMetadata | undefined,
  request: PdfMetadata | undefined,
): DocumentInfo {
  const merged = { ...design, ...request };
  return {
    title: merged.title ?? fileTitle,
    ...(merged.author !== undefined && { author: merged.author }),
    ...(merged.subject !== undefined && { subject: merged.subject }),
    ...(merged.keywords?.length && { keywords: merged.keywords }),
  };
}

/** Keywords as the one text string the Info dictionary holds. */
export const keywordsText = (keywords: readonly string[]): string => keywords.join(", ");
