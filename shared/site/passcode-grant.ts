import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** How long a correct passcode is remembered (short-lived). */
export const GRANT_SECONDS = 30 * 60;

/** The grant cookie's name: one per file, so a grant never opens another file. */
export const grantCookieName = (fileId: string) => `platen_pc_${fileId.replace(/[^0-9A-Za-z]/g, "")}`;

interface GrantSubject {
  requestId: string;
  fileId: string;
  /** The stored passcode hash: a new passcode voids every earlier grant. */
  passcodeHash: string;
}

function mac(key: Buffer, subject: GrantSubject, expires: number): string {
  const hashTag = createHash("sha256").update(subject.passcodeHash).digest("base64url");
  return createHmac("sha256", key)
    .update(`grant\n${subject.requestId}\n${subject.fileId}\n${hashTag}\n${expires}`)
    .digest("base64url");
}

/** The cookie value remembering a correct passcode: `<expiry>.<HMAC>`. */
export function issueGrant(key: Buffer, subject: GrantSubject, nowSeconds: number): string {
  const expires = nowSeconds + GRANT_SECONDS;
  return `${expires}.${mac(key, subject, expires)}`;
}

/** True for an unexpired grant signed for exactly this file and passcode. */
export function verifyGrant(
  key: Buffer,
  subject: GrantSubject,
  value: string | undefined,
  nowSeconds: number,
): boolean {
  const match = /^(\d{1,12})\.([\w-]{43})$/.exec(value ?? "");
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires <= nowSeconds) return false;
  const expected = Buffer.from(mac(key, subject, expires));
  const actual = Buffer.from(match[2]!);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
