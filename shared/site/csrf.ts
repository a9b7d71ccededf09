import { createHmac, timingSafeEqual } from "node:crypto";

/** A form stays usable this long after the page was shown. */
export const CSRF_TOKEN_SECONDS = 2 * 60 * 60;

const mac = (key: Buffer, userId: string, expires: number) =>
  createHmac("sha256", key).update(`csrf\n${userId}\n${expires}`).digest("base64url");

/**
 * Synchronizer tokens for the logged-in forms (invitations, settings): a hidden field
 * signed for the logged-in user with the site key and an expiry. Another site cannot
 * read it from our pages, so a forged cross-site POST never carries a valid one; the
 * session cookie's SameSite is the second line.
 */
export function issueCsrfToken(key: Buffer, userId: string, nowSeconds: number): string {
  const expires = nowSeconds + CSRF_TOKEN_SECONDS;
  return `${expires}.${mac(key, userId, expires)}`;
}

export function verifyCsrfToken(
  key: Buffer,
  userId: string,
  token: string | null | undefined,
  nowSeconds: number,
): boolean {
  const match = /^(\d{1,12})\.([\w-]{43})$/.exec(token ?? "");
  if (!match || Number(match[1]) <= nowSeconds) return false;
  const expected = Buffer.from(mac(key, userId, Number(match[1])));
  const actual = Buffer.from(match[2]!);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
