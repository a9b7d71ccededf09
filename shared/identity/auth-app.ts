import type { IncomingMessage, ServerResponse } from "node:http";
import { errors } from "oidc-provider";
import { config } from "#shared/aws/config.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { pickLanguage } from "#shared/errors/language.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { logger } from "#shared/observability/logger.ts";
import { pathDecodes } from "#shared/web/path-segments.ts";
import { ANY_ORIGIN, readBody, send, sendHtml, sendJson } from "./http-io.ts";
import { handleInteraction, type InteractionContext } from "./interactions.ts";
import { identityKeys } from "./keys.ts";
import { authRoutes, createProvider } from "./provider.ts";
import { servePublicGallery } from "./public-templates.ts";
import { expiredPage } from "./screens.ts";
import { applyTokenPolicy } from "./token-request.ts";

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * `{auth_url}` as one Node request handler: the public gallery and the interaction screens
 * are ours, everything else is oidc-provider's (discovery, authorize, token, userinfo,
 * JWKS, revocation). Built once per container: keys are read once.
 */
export async function createAuthApp(settings: { issuer: string; apiAudience: string }): Promise<NodeHandler> {
  const keys = await identityKeys();
  const provider = createProvider({ ...settings, keys });
  const mountPath = new URL(settings.issuer).pathname.replace(/\/$/, "");
  const ctx: InteractionContext = { provider, mountPath, secureCookies: settings.issuer.startsWith("https:") };
  const callback = provider.callback();
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://auth.invalid");
    // A path segment that does not decode (`%E0%A4%A`) names no route of ours or the provider's.
    if (!pathDecodes(url.pathname)) return notFoundJson(req, res);
    try {
      if (url.pathname.startsWith("/public/templates") && req.method === "GET")
        return await servePublicGallery(
          res,
          url.pathname,
          url.searchParams,
          pickLanguage(req.headers["accept-language"]),
        );
      if (url.pathname.startsWith("/interaction/")) return await handleInteraction(req, res, url.pathname, ctx);
      if (url.pathname === authRoutes.token && req.method === "POST") {
        const policy = await applyTokenPolicy(await readBody(req), req.headers.authorization);
        if ("error" in policy) return sendJson(res, 400, policy, ANY_ORIGIN);
        // The provider reads an already-read body from req.body (its documented fallback).
        (req as IncomingMessage & { body?: string }).body = policy.body;
      }
      await callback(req, res);
    } catch (err) {
      failed(req, res, err);
    }
  };
}

/** The catalogue's 404 body, as the public gallery answers its errors. */
function notFoundJson(req: IncomingMessage, res: ServerResponse): void {
  const lang = pickLanguage(req.headers["accept-language"]);
  sendJson(res, 404, buildErrorBody(new PlatenError("NOT_FOUND"), lang, config().siteUrl), ANY_ORIGIN);
}

/** Errors of our own routes: a lost interaction is the user's, anything else is logged and generic. */
function failed(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof errors.SessionNotFound || (err as { status?: number }).status === 413) {
    sendHtml(res, 400, expiredPage(pickLanguage(req.headers["accept-language"])));
    return;
  }
  // The path only: an OAuth query carries codes and state.
  logger.error("auth request failed", {
    path: new URL(req.url ?? "/", "http://auth").pathname,
    error: err instanceof Error ? err : String(err),
  });
  send(res, 500, "text/plain; charset=utf-8", "Internal error");
}
