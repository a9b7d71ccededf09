/**
 * Text that is not well-formed Unicode (a lone UTF-16 surrogate, which `JSON.parse` makes of an escape
 * such as `"\ud800"`) cannot be encoded as UTF-8: `encodeURIComponent` throws on it, S3 metadata and
 * HTTP headers refuse it, and a PDF would carry U+FFFD instead. Such text is refused where a body is
 * validated, before anything is stored or billed, instead of failing later with a 500.
 */

/** With the `u` flag a surrogate pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

export const isWellFormedText = (text: string): boolean => !LONE_SURROGATE.test(text);

/** Stands for an ill-formed key on the walk's stack: reported at the key's own path. */
const KEY_MARK = Symbol("ill-formed key");

/** A path as a chain to its parent: shared by every value below it, copied only when reported. */
interface PathLink {
  key: string | number;
  parent: PathLink | undefined;
}

const pathOf = (link: PathLink | undefined): (string | number)[] => {
  const path: (string | number)[] = [];
  for (let at = link; at; at = at.parent) path.push(at.key);
  return path.reverse();
};

/**
 * Paths (keys and indexes from the root) of every string in `value`, key or value at any depth, that
 * is not well-formed. A key's own path ends in that key, shown with U+FFFD in place of the lone
 * surrogate so the answer is well-formed itself. Walks with a stack of its own, not recursion: a body
 * of 100,000 nested arrays is valid JSON, and recursing into it overflowed the call stack (a 500).
 */
export function illFormedPaths(value: unknown): (string | number)[][] {
  const found: (string | number)[][] = [];
  const pending: { value: unknown; link: PathLink | undefined }[] = [{ value, link: undefined }];
  while (pending.length) {
    const { value: v, link } = pending.pop()!;
    if (v === KEY_MARK) found.push(pathOf(link));
    else if (typeof v === "string") {
      if (!isWellFormedText(v)) found.push(pathOf(link));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pending.push({ value: v[i], link: { key: i, parent: link } });
    } else if (typeof v === "object" && v !== null) {
      // Pushed in reverse so keys are reported in order; a key's own path before anything below it.
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const shown = isWellFormedText(key) ? key : key.replace(new RegExp(LONE_SURROGATE, "gu"), "\ufffd");
        pending.push({ value: child, link: { key: shown, parent: link } });
        if (shown !== key) pending.push({ value: KEY_MARK, link: { key: shown, parent: link } });
      }
    }
  }
  return found;
}
