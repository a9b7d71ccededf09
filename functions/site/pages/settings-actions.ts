import type { AuditAction } from "#shared/audit/audit-log.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { isPlatenError, type PlatenError } from "#shared/errors/platen-error.ts";
import type { Language } from "#shared/errors/language.ts";
import { getEndpointRecord } from "#shared/webhooks/endpoint-store.ts";
import type { WebhookEndpointInput } from "#shared/webhooks/endpoint-input.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  type EndpointDeps,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from "#shared/webhooks/endpoints.ts";
import { rotateAppKey } from "#shared/workspaces/app-key-rotation.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { fill } from "#shared/i18n/texts.ts";
import { auditSite } from "../audit.ts";
import type { SiteIdentity } from "../identity.ts";
import { formRefused, notFound } from "../site-edge.ts";
import type { PageHandler, SiteRequest, SiteResult } from "../site-types.ts";
import { csrfAccepted } from "../page-parts.ts";
import { t } from "../strings.ts";
import { requireUser } from "../visitor.ts";
import { type Flash, renderSettings, type SettingsView } from "./settings.ts";

/** The design filter of a settings form: checked designs plus the typed ids (deleted designs stay listed). */
export function endpointInput(form: URLSearchParams, opts: { withEnabled: boolean }): WebhookEndpointInput {
  const typed = (form.get("otherDesignIds") ?? "").split(/[\s,]+/).filter(Boolean);
  const type = form.get("designFilterType") === "selected" ? "selected" : "all";
  return {
    url: (form.get("url") ?? "").trim(),
    ...(opts.withEnabled && { enabled: form.get("enabled") === "true" }),
    designFilterType: type,
    targetDesignIds: type === "selected" ? [...form.getAll("targetDesignIds"), ...typed] : [],
  };
}

type Action = (ctx: {
  req: SiteRequest;
  view: SettingsView;
  deps: EndpointDeps;
  endpointId: string;
}) => Promise<Flash | undefined>;

const s_ = (req: SiteRequest) => t(req.lang);

/**
 * Each change goes through the same domain functions as the management API (see
 * shared/webhooks/README.md#managing-endpoints-over-http), then is audited.
 */
const actions: Record<string, Action> = {
  create: async ({ req, view, deps }) => {
    const { endpoint, secret } = await createWebhookEndpoint(
      view.workspace.id,
      endpointInput(req.form(), { withEnabled: false }),
      deps,
    );
    await audit(view, "webhook-endpoint.create", endpoint.id);
    return { kind: "secret", text: s_(req).settingsHookCreated, secret };
  },
  update: async ({ req, view, deps, endpointId }) => {
    await updateWebhookEndpoint(view.workspace.id, endpointId, endpointInput(req.form(), { withEnabled: true }), deps);
    await audit(view, "webhook-endpoint.update", endpointId);
    return undefined;
  },
  enable: async ({ view, deps, endpointId }) => {
    await updateWebhookEndpoint(view.workspace.id, endpointId, { enabled: true }, deps);
    await audit(view, "webhook-endpoint.update", endpointId);
    return undefined;
  },
  disable: async ({ view, deps, endpointId }) => {
    await updateWebhookEndpoint(view.workspace.id, endpointId, { enabled: false }, deps);
    await audit(view, "webhook-endpoint.update", endpointId);
    return undefined;
  },
  delete: async ({ view, endpointId }) => {
    await deleteWebhookEndpoint(view.workspace.id, endpointId);
    await audit(view, "webhook-endpoint.delete", endpointId);
    return undefined;
  },
  secret: async ({ req, view, endpointId }) => {
    const endpoint = await getEndpointRecord(view.workspace.id, endpointId);
    if (!endpoint) return { kind: "problem", text: t(req.lang).notFoundBody };
    await audit(view, "webhook-endpoint.secret-read", endpointId);
    return { kind: "secret", text: fill(s_(req).settingsHookSecret, { url: endpoint.url }), secret: endpoint.secret };
  },
  regenerate: async ({ req, view, deps, endpointId }) => {
    const { secret } = await rotateWebhookSecret(view.workspace.id, endpointId, deps, 0, () =>
      audit(view, "webhook-endpoint.secret-regenerate", endpointId),
    );
    const url = (await getEndpointRecord(view.workspace.id, endpointId))?.url ?? endpointId;
    return { kind: "secret", text: fill(s_(req).settingsHookSecretNew, { url }), secret };
  },
};

/**
 * The same domain function as POST /v1/workspace/{id}/application-token/regenerate
 * (OpenAPI rotateApplicationKey); the key is shown once.
 */
const rotateKey: Action = async ({ req, view, deps }) => {
  const { applicationKey } = await rotateAppKey(view.workspace.id, deps.clock, () =>
    audit(view, "application-key.rotate", view.workspace.id),
  );
  return { kind: "secret", text: s_(req).settingsKeyNew, secret: applicationKey };
};

const audit = (view: SettingsView, action: AuditAction, target: string) =>
  auditSite({ workspaceId: view.workspace.id, actor: view.userId, action, target });

/**
 * POST `/settings/{workspaceId}/hooks[/{endpointId}/{action}]` and `/settings/{workspaceId}/key-rotate`: admins only (readers get
 * 403, non-members the 404 page), CSRF-checked. A change the domain refuses (bad URL, 11th
 * endpoint, …) shows its message on the page with the error's status; a secret is shown
 * once in the answer itself, never stored in a redirect.
 */
export const settingsAction =
  (identity: SiteIdentity, name: "create" | "endpoint" | "key-rotate"): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const workspaceId = req.params.workspaceId ?? "";
    const role = await identity.roleIn(workspaceId, user.userId);
    const workspace = role && (await getWorkspace(workspaceId));
    if (!role || !workspace) return notFound(req, identity, true);
    const view: SettingsView = { userId: user.userId, workspace, role, all: await identity.workspacesOf(user.userId) };
    const s = t(req.lang);
    if (role !== "admin" || !(await csrfAccepted(user.userId, req.form()))) {
      return formRefused(req, identity, s.settingsTitle);
    }
    const key = name === "create" ? "create" : (req.params.action ?? "");
    const action = name === "key-rotate" ? rotateKey : Object.hasOwn(actions, key) ? actions[key] : undefined;
    if (!action) return notFound(req, identity, true);
    return runAction(req, identity, view, action);
  };

async function runAction(
  req: SiteRequest,
  identity: SiteIdentity,
  view: SettingsView,
  action: Action,
): Promise<SiteResult> {
  const deps: EndpointDeps = { clock: systemClock, env: config().env };
  try {
    const flash = await action({ req, view, deps, endpointId: req.params.endpointId ?? "" });
    // Re-read: a rotation changed the key's date shown next to the new key.
    if (flash)
      return renderSettings(req, identity, {
        ...view,
        workspace: (await getWorkspace(view.workspace.id)) ?? view.workspace,
        flash,
      });
    return { status: 303, redirect: `/settings?workspace=${encodeURIComponent(view.workspace.id)}` };
  } catch (err) {
    if (!isPlatenError(err) || err.status >= 500) throw err;
    return renderSettings(
      req,
      identity,
      { ...view, flash: { kind: "problem", text: problemText(req.lang, err) } },
      err.status,
    );
  }
}

/** A refused change's reason; a lost rotation race says whose key is valid instead of the raw details. */
export function problemText(lang: Language, err: PlatenError): string {
  const s = t(lang);
  if (err.code === "APP_KEY_ROTATION_CONFLICT")
    return fill(s.settingsKeyConflict, { at: String(err.vars.lastRotatedAt ?? "") });
  return [s.settingsProblem, ...err.details.map((d) => detailMessage(d, lang))].join(" ");
}
