import { jwtVerify, SignJWT } from "jose";
import { cookieValue, setCookie } from "#shared/web/cookies.ts";
import { identityKeys } from "./keys.ts";

/**
 * The known-device cookie: set after a correct password, it lets the account's owner through the
 * per-account back-off that wrong passwords from elsewhere start (login-limit.ts). It names the user only
 * and signs nobody in; HS256 with the cookie keys, like the session.
 */
export const DEVICE_COOKIE = "platen_device";
export const DEVICE_SECONDS = 180 * 24 * 3600;
const AUDIENCE = "platen-device";

const keyBytes = (key: string) => new Uint8Array(Buffer.from(key, "base64url"));

export async function createDeviceCookie(userId: string, opts: { secure: boolean }): Promise<string> {
  const [current] = (await identityKeys()).cookieKeys;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${DEVICE_SECONDS}s`)
    .sign(keyBytes(current!));
  return setCookie(DEVICE_COOKIE, token, {
    path: "/",
    maxAgeSeconds: DEVICE_SECONDS,
    https: opts.secure,
    sameSite: "Lax",
  });
}

/** The user this browser signed in as before (a valid device cookie), or undefined. */
export async function knownDeviceUser(cookieHeader: string | undefined): Promise<string | undefined> {
  const token = cookieValue(cookieHeader, DEVICE_COOKIE);
  if (!token) return undefined;
  for (const key of (await identityKeys()).cookieKeys) {
    try {
      const { payload } = await jwtVerify(token, keyBytes(key), { algorithms: ["HS256"], audience: AUDIENCE });
      return typeof payload.sub === "string" ? payload.sub : undefined;
    } catch {
      // wrong key or invalid token: try the next key
    }
  }
  return undefined;
}
