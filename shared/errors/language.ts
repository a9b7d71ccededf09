export type Language = "en" | "ja";

/**
 * README.md#errors: Japanese when the highest-priority Accept-Language tag is `ja` or `ja-*`.
 * Ties keep header order; `q=0` tags are refused ones and never win.
 */
export function pickLanguage(acceptLanguage: string | undefined): Language {
  if (!acceptLanguage) return "en";
  let best: { tag: string; q: number } | undefined;
  for (const part of acceptLanguage.split(",")) {
    const [rawTag, ...params] = part.trim().split(";");
    const tag = rawTag?.trim().toLowerCase();
    if (!tag) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { tag, q };
  }
  return best && (best.tag === "ja" || best.tag.startsWith("ja-")) ? "ja" : "en";
}
