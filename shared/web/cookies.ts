/** RFC 6265 `Cookie` header → map (first occurrence wins, as browsers send the most specific path first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** One cookie's value from a `Cookie` header. */
export const cookieValue = (header: string | undefined, name: string): string | undefined =>
  parseCookies(header).get(name);

/** The attributes every cookie of the service gets. */
export interface CookieOptions {
  path: string;
  maxAgeSeconds: number;
  /** Secure is set unless the origin is plain http (local stack). */
  https: boolean;
  /** Strict unless a cross-site navigation must carry the cookie (login session, language). */
  sameSite?: "Strict" | "Lax";
}

/** Attributes of every cookie the site and the auth server set: unreadable to scripts, same-site only. */
export function cookieAttributes(opts: CookieOptions): string {
  return [
    `Path=${opts.path}`,
    `Max-Age=${opts.maxAgeSeconds}`,
    "HttpOnly",
    `SameSite=${opts.sameSite ?? "Strict"}`,
    ...(opts.https ? ["Secure"] : []),
  ].join("; ");
}

/** A whole `Set-Cookie` line. */
export const setCookie = (name: string, value: string, opts: CookieOptions): string =>
  `${name}=${value}; ${cookieAttributes(opts)}`;
