import { type JWTPayload, jwtVerify, SignJWT } from "jose";
import { systemClock } from "#shared/clock.ts";
import { cookieValue, setCookie } from "#shared/web/cookies.ts";
import { identityKeys } from "./keys.ts";
import { getUser, type User } from "./users.ts";

/**
 * The first-party login session cookie on `{auth_url}`/`{site}` (see
 * shared/identity/README.md#sessions-and-login).
 */
export const SESSION_COOKIE = "platen_session";
export const SESSION_SECONDS = 12 * 3600;
const AUDIENCE = "platen-session";

const keyBytes = (key: string) => new Uint8Array(Buffer.from(key, "base64url"));

/**
 * A `Set-Cookie` value for a signed session of `userId`: HttpOnly, SameSite=Lax, Secure
 * unless the site is plain http (local stack). Signed (HS256) with the current cookie key.
 */
export async function createSessionCookie(userId: string, opts: { secure: boolean }): Promise<string> {
  const [current] = (await identityKeys()).cookieKeys;
  // `at`: when it was signed, in ms (a sign-out in the same second still ends it, see endSessions).
  const token = await new SignJWT({ at: systemClock.now().getTime() })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${SESSION_SECONDS}s`)
    .sign(keyBytes(current!));
  return setCookie(SESSION_COOKIE, token, {
    path: "/",
    maxAgeSeconds: SESSION_SECONDS,
    https: opts.secure,
    sameSite: "Lax",
  });
}

/**
 * The signed-in user of a `Cookie` header, or undefined (no cookie, bad signature, expired,
 * the user deleted, or signed out since: `endSessions`). Every kept cookie key is tried, so
 * sessions survive a key rotation. `signedAt` (ms) is when the password was given: the login time the
 * provider records when this session stands for its login.
 */
export async function readSession(
  cookieHeader: string | undefined,
  users: SessionUsers = { getUser },
): Promise<{ userId: string; signedAt: number } | undefined> {
  const token = cookieValue(cookieHeader, SESSION_COOKIE);
  if (!token) return undefined;
  const payload = await verifiedPayload(token);
  if (typeof payload?.sub !== "string") return undefined;
  const user = await users.getUser(payload.sub);
  const signedAt = typeof payload.at === "number" ? payload.at : (payload.iat ?? 0) * 1000;
  return user && signedAt > (user.sessionsValidAfter ?? 0) ? { userId: payload.sub, signedAt } : undefined;
}

/** Where `readSession` finds the user (the identity table; a fake in unit tests). */
export interface SessionUsers {
  getUser(userId: string): Promise<Pick<User, "sessionsValidAfter"> | undefined>;
}

async function verifiedPayload(token: string): Promise<JWTPayload | undefined> {
  for (const key of (await identityKeys()).cookieKeys) {
    try {
      return (await jwtVerify(token, keyBytes(key), { algorithms: ["HS256"], audience: AUDIENCE })).payload;
    } catch {
      // wrong key or invalid token: try the next key
    }
  }
  return undefined;
}
