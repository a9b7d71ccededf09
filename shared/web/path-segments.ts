/**
 * A path segment's percent-escapes decoded, or undefined when they do not decode: an escape cut
 * short (`%E0%A4%A`), bytes that are not UTF-8, the three bytes of a lone surrogate (`%ED%A0%80`).
 * Such a segment names nothing any host serves, so each host answers 404 for it at its edge
 * (the site's router, the auth server's dispatch) instead of a page failing on `decodeURIComponent`.
 */
export function decodePathSegment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** Whether every segment of a request path decodes (decodePathSegment). */
export const pathDecodes = (path: string): boolean =>
  path.split("/").every((segment) => decodePathSegment(segment) !== undefined);
