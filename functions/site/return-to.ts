/** Only a path of this site: never `//host` or an absolute URL (no open redirect). */
export function safeReturnTo(value: string | null | undefined): string {
  // Browsers drop tabs and newlines from URLs and read `\` as `/`: "/\t/evil.com" would be
  // "//evil.com". So no control characters or backslashes at all, and the value must stay on
  // this origin once a URL parser (as a browser would) has read it.
  if (!value?.startsWith("/") || [...value].some((c) => c < " " || c === "\u007f" || c === "\\")) return "/";
  const base = "https://site.invalid";
  const url = new URL(value, base);
  return url.origin === base && !value.startsWith("//") ? `${url.pathname}${url.search}${url.hash}` : "/";
}
