import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import { newId } from "#shared/ids.ts";

export const shareTypes = { "01": "workspace", "02": "invited", "03": "public" } as const;
export type ShareType = (typeof shareTypes)[keyof typeof shareTypes];

/** spec 2.3 (response side). `passcode` only right after generation. */
export interface Share {
  shareType: ShareType;
  url: string;
  passcodeEnabled: boolean;
  passcode?: string;
}

/** spec 2.3: `{site}/file/<requestId>/<fileId>` for every share type. */
export const shareUrl = (siteUrl: string, requestId: string, fileId: string) =>
  `${siteUrl}/file/${encodeURIComponent(requestId)}/${encodeURIComponent(fileId)}`;

/** A passcode people can type: 10 base62 characters (~59 bits). */
export const generatePasscode = (): string => newId(10);

/**
 * Passcodes are short, so they get a salted, slow hash (scrypt) rather than the plain
 * SHA-256 that suits long random application keys.
 */
export function hashPasscode(passcode: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString("base64url")}$${scryptSync(passcode, salt, 32).toString("base64url")}`;
}

export function verifyPasscode(passcode: string, stored: string): boolean {
  const [scheme, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const actual = scryptSync(passcode, Buffer.from(salt, "base64url"), 32);
  const expected = Buffer.from(hash, "base64url");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
