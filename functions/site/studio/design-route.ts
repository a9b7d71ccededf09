import { accessText } from "#shared/auth/access-text.ts";
import type { DesignGrant, DesignOperation } from "#shared/auth/design-access.ts";
import type { RateClass } from "#shared/definitions/rate-classes.ts";
import type { DesignHead } from "#shared/designs/design-store.ts";
import { isPlatenError, PlatenError } from "#shared/errors/platen-error.ts";
import type { Role, SiteIdentity } from "../identity.ts";
import { csrfAccepted } from "../page-parts.ts";
import { formRefused, notFound } from "../site-edge.ts";
import type { PageHandler, SiteRequest, SiteResult } from "../site-types.ts";
import { t } from "../strings.ts";
import { admitRate, findDesign, jsonError, scriptCsrfAccepted, sessionGrant } from "./studio-access.ts";

/** What a route of one design gets: the visitor, the design, the grant for its operation. */
export interface DesignCall {
  req: SiteRequest;
  userId: string;
  head: DesignHead;
  grant: DesignGrant;
  role: Role;
}

/** An operation whose calls count toward a rate class, as the design API's route of the same work does. */
export interface CountedOperation {
  operation: DesignOperation;
  rateClass: RateClass;
}

/** Create, publish, draft saves and restores: `designs:write`, in the `design-write` class. */
export const DESIGN_WRITE: CountedOperation = { operation: "designs:write", rateClass: "design-write" };
/** A draft's read checks it as a save does (its warnings): `designs:read`, in the `design-write` class. */
export const DRAFT_READ: CountedOperation = { operation: "designs:read", rateClass: "design-write" };
/** A preview: `designs:read`, in the `preview` class. */
export const PREVIEW: CountedOperation = { operation: "designs:read", rateClass: "preview" };

/**
 * A route under `/designs/{designId}`: `page` answers HTML (login redirect, the 404 page, the 403
 * page), `json` answers the API's error body (the editor's script). Either way the visitor must be
 * a member of the design's workspace (else not found), hold the operation's role (else 403), and
 * send a change with the CSRF token: the form's `csrf` field, or the script's header. A route of a
 * CountedOperation then counts toward its rate class as the design API's route does
 * (shared/limits/README.md#rate-limits), before any of its work: over the limit it answers 429 with
 * Retry-After (the script: the API's error body; a form: the refusal page).
 */
export function designRoute(
  identity: SiteIdentity,
  needs: DesignOperation | CountedOperation,
  kind: "page" | "json",
  run: (call: DesignCall) => Promise<SiteResult>,
): PageHandler {
  const operation = typeof needs === "string" ? needs : needs.operation;
  const rateClass = typeof needs === "string" ? undefined : needs.rateClass;
  return async (req) => {
    const fail = (err: PlatenError, page: () => SiteResult) => (kind === "json" ? jsonError(req, err) : page());
    const userId = await identity.userOf(req.header("cookie"));
    if (!userId)
      return kind === "json"
        ? jsonError(req, new PlatenError("INVALID_CREDENTIALS"))
        : { status: 303, redirect: identity.loginUrl(req.returnTo) };
    const found = await findDesign(identity, userId, req.params.designId ?? "");
    if (!found) return fail(new PlatenError("DESIGN_NOT_FOUND"), () => notFound(req, identity, true));
    let access: Awaited<ReturnType<typeof sessionGrant>>;
    try {
      access = await sessionGrant(identity, userId, found.head.workspaceId, operation);
    } catch (err) {
      if (!isPlatenError(err)) throw err;
      return fail(err, () => formRefused(req, identity, t(req.lang).settingsTitle));
    }
    if (!access) return fail(new PlatenError("DESIGN_NOT_FOUND"), () => notFound(req, identity, true));
    if (req.method !== "GET" && !(await changeCarriesToken(req, userId, kind)))
      return fail(
        new PlatenError("ACCESS_DENIED", {
          details: [
            {
              text: accessText.csrfMissing,
            },
          ],
        }),
        () => formRefused(req, identity, found.head.label),
      );
    try {
      if (rateClass) await admitRate(access.grant, rateClass);
      return await run({ req, userId, head: found.head, grant: access.grant, role: access.role });
    } catch (err) {
      if (kind === "json") return jsonError(req, err);
      if (isPlatenError(err) && err.status === 404) return notFound(req, identity, true);
      throw err;
    }
  };
}

const changeCarriesToken = (req: SiteRequest, userId: string, kind: "page" | "json") =>
  kind === "json" ? scriptCsrfAccepted(req, userId) : csrfAccepted(userId, req.form());
