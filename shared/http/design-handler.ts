import * as z from "zod";
import { authorizeDesigns, type DesignGrant, type DesignOperation } from "#shared/auth/design-access.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { getUser } from "#shared/identity/users.ts";
import { getOAuthClient } from "#shared/identity/oauth-clients.ts";
import { illFormedPaths } from "#shared/validation/well-formed.ts";
import type { ApiRequest, ApiResult } from "./api-types.ts";
import type { ProxyHandler } from "./edge-context.ts";
import { type GrantedContext, grantedHandler } from "./granted-handler.ts";
import { httpText } from "./http-text.ts";
import { parseJsonBody } from "./request-body.ts";

/** What a design API handler gets besides the request. */
export interface DesignContext extends GrantedContext<DesignGrant> {
  /** Who the caller is in a version's `createdBy`: the user's e-mail, else the OAuth client's name. */
  who(): Promise<string>;
}

/** One route of a design API function: the route table's method and path, and what it needs. */
export interface DesignRoute {
  method: string;
  path: string;
  operation: DesignOperation;
  run(req: ApiRequest, ctx: DesignContext): Promise<ApiResult>;
}

/**
 * The handler of the design API's functions (shared/authoring/README.md), built by grantedHandler: the
 * caller is a Bearer token or a login session (an appkey is refused), a session names its workspace with
 * `X-Workspace-Id`; the operation's scope and role are checked (design-access.ts), the request counts toward
 * its route's rate class (a preview; a design write; a draft read), and only then is the body looked at
 * and the route run: over the limit the answer is 429 before any of the body's work (its text walked, a
 * bundle checked, a render).
 */
export function designHandler(table: DesignRoute[]): ProxyHandler {
  const routeOf = (req: ApiRequest) => {
    const resource = (req.event.resource ?? "").replace(/^\/v1(?=\/)/, "");
    const route = table.find((r) => r.method === req.event.httpMethod && r.path === resource);
    if (!route) throw new Error(`${req.event.httpMethod} ${resource} is not a route of this function`);
    return route;
  };
  return grantedHandler(
    (caller, req) => authorizeDesigns(caller, routeOf(req).operation),
    async (req, ctx) => {
      refuseIllFormedText(req);
      let who: Promise<string> | undefined;
      return routeOf(req).run(req, {
        ...ctx,
        who: () => {
          who ??= nameOf(ctx.grant);
          return who;
        },
      });
    },
  );
}

/**
 * A JSON body with text that is not well-formed Unicode (a lone surrogate) is refused before any
 * route reads it, as on the generation routes (shared/validation/well-formed.ts): it could not be
 * stored, rendered or answered faithfully.
 */
function refuseIllFormedText(req: ApiRequest): void {
  if (/^application\/zip\b/i.test(req.header("content-type") ?? "")) return;
  let json: unknown;
  try {
    json = JSON.parse(req.bodyText() ?? "");
  } catch {
    return; // not JSON: the route answers that
  }
  const paths = illFormedPaths(json);
  if (paths.length === 0) return;
  throw new PlatenError("VALIDATION_FAILED", {
    details: paths.slice(0, 20).map((path) => ({
      field: path.join(".") || "(body)",
      text: httpText.illFormed,
    })),
  });
}

async function nameOf(grant: DesignGrant): Promise<string> {
  const { userId, clientId } = grant.actor;
  if (userId) {
    const user = await getUser(userId);
    if (user) return user.email;
  }
  if (clientId) {
    const client = await getOAuthClient(clientId);
    if (client) return client.name;
  }
  return userId ?? clientId ?? "unknown";
}

/** The JSON body as an object, or 400 VALIDATION_FAILED. */
export function jsonObjectBody(req: Pick<ApiRequest, "bodyText" | "header">): Record<string, unknown> {
  return parseJsonBody(req, jsonObject);
}

const jsonObject = z.record(z.string(), z.unknown());
