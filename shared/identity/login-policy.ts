import type { KoaContextWithOIDC } from "oidc-provider";
import { interactionPolicy } from "oidc-provider";
import { getUser, type User } from "./users.ts";

/**
 * Why the provider asks for a login that a site session may answer: no provider session yet, or one
 * ended by a sign-out, or one older than `max_age` (the site session is then checked against it).
 * Any other reason (`login_prompt` for `prompt=login`, an `id_token_hint`, an ACR) asks for the password.
 */
const SITE_SESSION_ANSWERS = new Set(["no_session", "signed_out", "max_age"]);

/** A provider login (`loginTs`, seconds) ends when the user signed out at or after it (`sessionsValidAfter`, ms). */
export const endedBySignOut = (loginTs: number, user: Pick<User, "sessionsValidAfter">): boolean =>
  loginTs * 1000 <= (user.sessionsValidAfter ?? 0);

/**
 * oidc-provider's interaction policy plus one login check: the provider's own session cookie outlives the
 * site's sign-out (14 days), so a session whose login is not newer than the user's sign-out stamp asks for
 * the login again, as a deleted user's does. A login just given in this interaction stands.
 */
export function loginPolicy(users: { getUser(id: string): Promise<User | undefined> } = { getUser }) {
  const policy = interactionPolicy.base();
  policy.get("login")!.checks.add(
    new interactionPolicy.Check("signed_out", "the End-User signed out", async (ctx: KoaContextWithOIDC) => {
      const { session, result } = ctx.oidc;
      if (!session?.accountId || result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const user = await users.getUser(session.accountId);
      const ended = !user || endedBySignOut(session.authTime() ?? 0, user);
      return ended ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    }),
    0,
  );
  return policy;
}

/**
 * Whether the site's session (signed at `signedAtMs`) may stand for the login the provider asks for:
 * only for the reasons above, and never when it is older than the request's `max_age`.
 */
export function siteSessionAnswers(
  prompt: { name: string; reasons: string[] },
  params: Record<string, unknown>,
  signedAtMs: number,
  nowMs: number,
): boolean {
  if (prompt.name !== "login" || !prompt.reasons.every((r) => SITE_SESSION_ANSWERS.has(r))) return false;
  const maxAge = params.max_age === undefined ? undefined : Number(params.max_age);
  return maxAge === undefined || nowMs - signedAtMs <= maxAge * 1000;
}
