import { createHash, randomBytes } from "node:crypto";
import { newId } from "#shared/ids.ts";

/** Application keys look like `plt_` + 40 base62 characters (~238 bits). */
const APP_KEY_PATTERN = /^plt_[0-9A-Za-z]{40}$/;

export function generateAppKey(): string {
  return `plt_${newId(40)}`;
}

/** README.md#authentication: a malformed appkey is answered like a missing header (412). */
export const isWellFormedAppKey = (value: string): boolean => APP_KEY_PATTERN.test(value);

/**
 * Keys are stored only as SHA-256 hashes (see README.md#authentication). They are long random strings,
 * so a fast hash is enough: there is nothing to brute-force from a dictionary.
 */
export function hashAppKey(appKey: string): string {
  return createHash("sha256").update(appKey, "utf8").digest("hex");
}

/** Random secret material for other purposes (passcodes, webhook secrets). */
export const randomSecret = (bytes = 24): string => randomBytes(bytes).toString("base64url");
