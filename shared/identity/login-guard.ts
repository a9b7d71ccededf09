import type { Clock } from "#shared/clock.ts";
import { createDeviceCookie, knownDeviceUser } from "./device-cookie.ts";
import { accountBackingOff, allowLoginAttempt, countAccountFailure } from "./login-limit.ts";
import { createSessionCookie } from "./session.ts";
import { checkPassword, type User } from "./users.ts";

export type LoginOutcome = { ok: true; user: User; cookies: string[] } | { ok: false; reason: "limited" | "wrong" };

/**
 * One login attempt of the site's and the authorization server's forms. Limits: attempts per source address
 * and account and per address (over → "limited"); wrong passwords per account, past which only a device the
 * account signed in on before (its device cookie) may sign in. Under the back-off an unknown device is
 * "limited" whether its password is right or wrong, and the password is checked all the same, so neither the
 * answer nor its time tells a guesser anything. Success: the session and device cookies to set.
 */
export async function attemptLogin(
  input: { email: string; password: string; sourceAddress: string; cookieHeader?: string; secure: boolean },
  clock: Clock,
): Promise<LoginOutcome> {
  const { email, password } = input;
  if (!(await allowLoginAttempt(email, input.sourceAddress, clock))) return { ok: false, reason: "limited" };
  const [backingOff, deviceUser] = await Promise.all([
    accountBackingOff(email, clock),
    knownDeviceUser(input.cookieHeader),
  ]);
  const user = email && password ? await checkPassword(email, password) : undefined;
  if (backingOff && !(user && deviceUser === user.id)) {
    if (!user) await countAccountFailure(email, clock);
    return { ok: false, reason: "limited" };
  }
  if (!user) {
    await countAccountFailure(email, clock);
    return { ok: false, reason: "wrong" };
  }
  const cookies = await Promise.all([
    createSessionCookie(user.id, { secure: input.secure }),
    createDeviceCookie(user.id, { secure: input.secure }),
  ]);
  return { ok: true, user, cookies };
}
