/**
 * The security headers of every HTML answer: the site's pages, its inline PDF and
 * the auth server's own screens. The site's pages carry no script at all, so the policy
 * allows none; styles come from the site's own stylesheet only. Nothing is framed, and no
 * answer may be framed (`frame-ancestors 'none'`): the file page shows page images, and the
 * PDF opens as a page of its own.
 * `no-referrer` keeps share URLs out of referrers.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "frame-src 'none'",
  "object-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The design studio's editor page runs the site's own bundled script (content-hashed, from
 * `/assets/js/`; in AWS from the static-assets distribution, `scriptOrigin`), never an inline one,
 * and calls the site's own JSON routes. Its code editor (CodeMirror) writes its styles into a
 * `<style>` element, allowed by the page's one-time nonce only. Everything else is the page
 * policy: previews are PNG images from the renderer, so no template HTML runs here.
 */
export const studioPolicy = (styleNonce: string, scriptOrigin?: string) =>
  PAGE_POLICY.replace(
    "default-src 'none'",
    `default-src 'none'; script-src 'self'${scriptOrigin ? ` ${scriptOrigin}` : ""}; connect-src 'self'`,
  ).replace("style-src 'self'", `style-src 'self' 'nonce-${styleNonce}'`);
const STUDIO_POLICY = PAGE_POLICY.replace(
  "default-src 'none'",
  "default-src 'none'; script-src 'self'; connect-src 'self'",
);

/** The PDF opened inline in the browser's viewer: nothing loads from it, and nothing may frame it. */
const PREVIEW_POLICY = ["default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"].join(
  "; ",
);

/**
 * The auth server's login and consent screens load nothing: no scripts, no frames, their
 * styles inline. No form-action: the consent POST ends in a redirect to the client.
 */
const AUTH_SCREEN_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

/** `page`, `preview` and `studio`: the site; `auth-screen`: the auth server's own HTML. */
export type HeaderProfile = "page" | "preview" | "studio" | "auth-screen";

/** The headers for one response; HSTS only where the site is served over HTTPS. */
export function securityHeaders(profile: HeaderProfile, https: boolean): Record<string, string> {
  if (profile === "auth-screen") return authScreenHeaders;
  return {
    "Content-Security-Policy":
      profile === "preview" ? PREVIEW_POLICY : profile === "studio" ? STUDIO_POLICY : PAGE_POLICY,
    "X-Frame-Options": "DENY",
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

/** The auth screens as they have always been answered (oidc-provider's own pages set theirs). */
const authScreenHeaders: Record<string, string> = {
  "Content-Security-Policy": AUTH_SCREEN_POLICY,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};
