import type { IncomingMessage, ServerResponse } from "node:http";
import type Provider from "oidc-provider";
import { systemClock } from "#shared/clock.ts";
import { pickLanguage } from "#shared/errors/language.ts";
import { sentFromAnotherSite } from "#shared/cross-site.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { saveGrantWorkspace } from "./grant-workspace.ts";
import { readBody, sendHtml, sourceAddress } from "./http-io.ts";
import { attemptLogin } from "./login-guard.ts";
import { siteSessionAnswers } from "./login-policy.ts";
import { listMemberships } from "./memberships.ts";
import { consentPage, loginPage, refusalPage } from "./screens.ts";
import { readSession } from "./session.ts";
import { getUser } from "./users.ts";

type Details = Awaited<ReturnType<Provider["interactionDetails"]>>;

export interface InteractionContext {
  provider: Provider;
  /** Path prefix of `{auth_url}` (an API Gateway stage), for form actions. */
  mountPath: string;
  /** Session cookies are Secure unless `{auth_url}` is plain http (local stack). */
  secureCookies: boolean;
}

const GRANT_SECONDS = 30 * 24 * 3600;

/**
 * The login and consent screens of oidc-provider's interactions:
 * GET `/interaction/:uid` shows the step the provider asks for; POST `…/login` and
 * `…/confirm` take the forms. CSRF: the forms act only with the interaction cookie the
 * provider bound to this uid (SameSite=Lax, so another site cannot post with it), and a
 * POST a browser sends from another site is refused (403) as on the site.
 */
export async function handleInteraction(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  ctx: InteractionContext,
): Promise<void> {
  const [, , uid, action] = path.split("/");
  const lang = pickLanguage(req.headers["accept-language"]);
  const details = await ctx.provider.interactionDetails(req, res);
  if (!uid || details.uid !== uid) return sendHtml(res, 400, refusalPage(400, "Unknown interaction."));
  const base = `${ctx.mountPath}/interaction/${uid}`;
  // The forms post to this host only: another site's POST is refused before it counts.
  const header = (name: string) => [req.headers[name]].flat()[0];
  if (req.method === "POST" && sentFromAnotherSite(header))
    return sendHtml(res, 403, refusalPage(403, "This form can only be sent from this site."));
  if (req.method === "GET" && !action) return showStep(req, res, details, base, ctx);
  if (req.method === "POST" && action === "login" && details.prompt.name === "login")
    return login(req, res, base, lang, ctx);
  if (req.method === "POST" && action === "confirm" && details.prompt.name === "consent")
    return confirm(req, res, details, base, ctx);
  // A form of a step already done (back button, double submit): show the current step.
  res.writeHead(303, { Location: base, "Cache-Control": "no-store" });
  res.end();
}

async function showStep(
  req: IncomingMessage,
  res: ServerResponse,
  details: Details,
  base: string,
  ctx: InteractionContext,
): Promise<void> {
  const lang = pickLanguage(req.headers["accept-language"]);
  if (details.prompt.name === "login") {
    // Signed in on the site already: the first-party session stands for the login (readSession has checked
    // the user still exists and has not signed out since), unless the client asked for a fresh password
    // (`prompt=login`, a `max_age` the session is older than). The login time recorded is the session's own,
    // so the ID token's `auth_time` is when the password was given, not now.
    const session = await readSession(req.headers.cookie);
    if (session && siteSessionAnswers(details.prompt, details.params, session.signedAt, systemClock.now().getTime())) {
      await ctx.provider.interactionFinished(
        req,
        res,
        { login: { accountId: session.userId, ts: Math.floor(session.signedAt / 1000) } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    return sendHtml(res, 200, loginPage(lang, { action: `${base}/login` }));
  }
  return sendHtml(res, 200, consentPage(lang, await consentView(details, base, ctx)));
}

async function login(
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
  lang: ReturnType<typeof pickLanguage>,
  ctx: InteractionContext,
): Promise<void> {
  const form = new URLSearchParams(await readBody(req));
  const email = form.get("email") ?? "";
  const password = form.get("password") ?? "";
  const outcome = await attemptLogin(
    { email, password, sourceAddress: sourceAddress(req), cookieHeader: req.headers.cookie, secure: ctx.secureCookies },
    systemClock,
  );
  if (!outcome.ok && outcome.reason === "limited")
    return sendHtml(res, 429, loginPage(lang, { action: `${base}/login`, email, error: "limited" }));
  if (!outcome.ok) return sendHtml(res, 401, loginPage(lang, { action: `${base}/login`, email, error: "wrong" }));
  res.setHeader("Set-Cookie", outcome.cookies);
  await ctx.provider.interactionFinished(
    req,
    res,
    { login: { accountId: outcome.user.id } },
    { mergeWithLastSubmission: false },
  );
}

async function consentView(details: Details, base: string, ctx: InteractionContext, error?: boolean) {
  const accountId = details.session?.accountId ?? "";
  const [user, client, memberships] = await Promise.all([
    getUser(accountId),
    ctx.provider.Client.find(String(details.params.client_id)),
    listMemberships(accountId),
  ]);
  const workspaces = [];
  for (const m of memberships) {
    const ws = await getWorkspace(m.workspaceId);
    if (ws) workspaces.push({ id: ws.id, name: ws.name, role: m.role });
  }
  const scopes = String(details.params.scope ?? "")
    .split(" ")
    .filter(Boolean);
  return {
    action: `${base}/confirm`,
    clientName: client?.clientName ?? String(details.params.client_id),
    email: user?.email ?? "",
    scopes,
    workspaces,
    error,
  };
}

async function confirm(
  req: IncomingMessage,
  res: ServerResponse,
  details: Details,
  base: string,
  ctx: InteractionContext,
): Promise<void> {
  const form = new URLSearchParams(await readBody(req));
  if (form.get("decision") !== "allow") {
    const denied = { error: "access_denied", error_description: "The user denied access." };
    await ctx.provider.interactionFinished(req, res, denied, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session?.accountId ?? "";
  const workspaceId = form.get("workspaceId") ?? "";
  // Only workspaces the user is a member of may be chosen (README.md#authentication: the token is bound to it).
  if (!(await listMemberships(accountId)).some((m) => m.workspaceId === workspaceId)) {
    return sendHtml(
      res,
      400,
      consentPage(pickLanguage(req.headers["accept-language"]), await consentView(details, base, ctx, true)),
    );
  }
  const grantId = await saveGrant(details, ctx.provider, accountId);
  await saveGrantWorkspace(grantId, workspaceId, Math.floor(systemClock.now().getTime() / 1000) + GRANT_SECONDS);
  await ctx.provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** A new grant with exactly what the provider says is missing (as oidc-provider's example does). */
async function saveGrant(details: Details, provider: Provider, accountId: string): Promise<string> {
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(" "));
  return grant.save();
}
