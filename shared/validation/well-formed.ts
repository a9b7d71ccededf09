/**
 * Text that is not well-formed Unicode (a lone UTF-16 surrogate, which `JSON.parse` makes of an escape
 * such as `"\ud800"`) cannot be encoded as UTF-8: `encodeURIComponent` throws on it, S3 metadata and
 * HTTP headers refuse it, and a PDF would carry U+FFFD instead. Such text is refused where a body is
 * validated, before anything is stored or billed, instead of failing later with a 500.
 */

/** With the `u` flag a surrogate pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

export const isWellFormedText = (text: string): boolean => !LONE_SURROGATE.test(text);

/**
 * Paths (keys and indexes from the root) of every string in `value`, key or value at any depth, that
 * is not well-formed. A key's own path ends in that key, shown with U+FFFD in place of the lone
 * surrogate so the answer is well-formed itself.
 */
export function illFormedPaths(value: unknown, path: (string | number)[] = [], found: (string | number)[][] = []) {
  if (typeof value === "string") {
    if (!isWellFormedText(value)) found.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      illFormedPaths(v, [...path, i], found);
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      const shown = isWellFormedText(key) ? key : key.replace(new RegExp(LONE_SURROGATE, "gu"), "\ufffd");
      if (shown !== key) found.push([...path, shown]);
      illFormedPaths(v, [...path, shown], found);
    }
  }
  return found;
}
