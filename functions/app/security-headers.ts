/**
 * Security headers of every site response (issue 14 item 5). The pages carry no script
 * at all, so the policy allows none; styles come from the site's own stylesheet only.
 * `frame-ancestors 'none'` everywhere except the inline preview, which the file page
 * itself frames (same origin). `no-referrer` keeps share URLs out of referrers.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  // The file page frames its own preview route; nothing else is framed or embedded.
  "frame-src 'self'",
  "object-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The PDF preview is framed by the file page: same origin only, and nothing loads from it. */
const PREVIEW_POLICY = ["default-src 'none'", "frame-ancestors 'self'", "base-uri 'none'", "form-action 'none'"].join(
  "; ",
);

export type HeaderProfile = "page" | "preview";

/** The headers for one response; HSTS only where the site is served over HTTPS. */
export function securityHeaders(profile: HeaderProfile, https: boolean): Record<string, string> {
  return {
    "Content-Security-Policy": profile === "preview" ? PREVIEW_POLICY : PAGE_POLICY,
    "X-Frame-Options": profile === "preview" ? "SAMEORIGIN" : "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    // Pages show per-visitor data (shares, passcode state): never cached by anything in between.
    "Cache-Control": "no-store",
    ...(https && { "Strict-Transport-Security": "max-age=31536000; includeSubDomains" }),
  };
}

/** Attributes of every cookie the site sets: unreadable to scripts, same-site only. */
export function cookieAttributes(opts: {
  path: string;
  maxAgeSeconds: number;
  https: boolean;
  sameSite?: "Strict" | "Lax";
}): string {
  return [
    `Path=${opts.path}`,
    `Max-Age=${opts.maxAgeSeconds}`,
    "HttpOnly",
    `SameSite=${opts.sameSite ?? "Strict"}`,
    ...(opts.https ? ["Secure"] : []),
  ].join("; ");
}
