import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A base62 id from crypto.randomBytes. Rejection sampling (bytes ≥ 248 are skipped)
 * keeps every character equally likely; 16 chars ≈ 95 bits (spec: 16 alphanumeric).
 */
export function newId(length = 16): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const isId = (value: string): boolean => /^[0-9A-Za-z]{16}$/.test(value);

/**
 * Whether a value taken from a request (a path, a form, a header) could be one of our ids at all, leniently
 * (ids of other lengths from older data or tests pass): what cannot is looked up as nothing, never sent as
 * a key DynamoDB refuses (over 2,048 bytes: a ValidationException and a 500).
 */
export const mayBeId = (value: string): boolean => /^[\w-]{1,64}$/.test(value);
