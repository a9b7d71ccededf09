import { type AuditRecorder, withdrawAudit } from "#shared/audit/audit-log.ts";
import type { Clock } from "#shared/clock.ts";
import { PlatenError, untranslated } from "#shared/errors/platen-error.ts";
import { newId } from "#shared/ids.ts";
import {
  checkEnabled,
  checkEndpointUrl,
  generateSigningSecret,
  resolveDesignFilter,
  type WebhookEndpointInput,
} from "./endpoint-input.ts";
import {
  deleteEndpointRecord,
  getEndpointRecord,
  insertEndpointRecord,
  listEndpointRecords,
  replaceEndpointRecord,
  type StoredEndpoint,
  type WebhookEndpoint,
} from "./endpoint-store.ts";
import { claimUrl, releaseUrl } from "./url-claims.ts";
import { MAX_ENDPOINTS_PER_WORKSPACE } from "./webhook-settings.ts";
import { webhookText } from "./webhook-text.ts";

/** What the management operations show: never the secret (only create and rotate return it). */
export interface WebhookEndpointView {
  id: string;
  url: string;
  enabled: boolean;
  designFilterType: WebhookEndpoint["designFilterType"];
  targetDesignIds: string[];
  ownerClientId?: string;
  disabledReason?: string;
  createdAt: string;
  updatedAt: string;
}

/** Dependencies of the management operations. */
export interface EndpointDeps {
  clock: Clock;
  /** `config().env`: decides the URL rules (target-guard). */
  env: string;
  /**
   * The OAuth client acting (see shared/webhooks/README.md#managing-endpoints-over-http); absent for the admin
   * CLI and the app UI.
   */
  clientId?: string;
}

/** The public view of an endpoint. */
export const endpointView = (e: WebhookEndpoint): WebhookEndpointView => ({
  id: e.endpointId,
  url: e.url,
  enabled: e.enabled,
  designFilterType: e.designFilterType,
  targetDesignIds: e.targetDesignIds,
  ...(e.ownerClientId && { ownerClientId: e.ownerClientId }),
  ...(e.disabledReason && { disabledReason: e.disabledReason }),
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

const notFound = () =>
  new PlatenError("WEBHOOK_ENDPOINT_NOT_FOUND", {
    details: [
      {
        field: "endpointId",
        text: webhookText.endpointNotFound,
      },
    ],
  });

/**
 * Registers an endpoint (see shared/webhooks/README.md#registering-endpoints,
 * shared/webhooks/README.md#managing-endpoints-over-http): URL checked, filter normalised, a fresh secret.
 * Refuses an 11th endpoint (see shared/limits/README.md#service-limits) and a URL the workspace already
 * registered (a request's `webhookUrl` must name exactly one endpoint), also when creates race: the URL is
 * claimed with a conditional write before the endpoint is stored (url-claims.ts).
 */
export async function createWebhookEndpoint(
  workspaceId: string,
  input: WebhookEndpointInput,
  deps: EndpointDeps,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const url = checkEndpointUrl(input.url, deps.env);
  const existing = await listEndpointRecords(workspaceId);
  assertUniqueUrl(existing, url);
  const endpointId = newId();
  if (!(await claimUrl(workspaceId, url, endpointId, () => listEndpointRecords(workspaceId), deps.clock))) {
    throw duplicateUrl();
  }
  const now = deps.clock.now().toISOString();
  const endpoint: WebhookEndpoint = {
    endpointId,
    workspaceId,
    url,
    enabled: checkEnabled(input.enabled, true),
    ...resolveDesignFilter(input),
    secret: generateSigningSecret(),
    ...(deps.clientId && { ownerClientId: deps.clientId }),
    createdAt: now,
    updatedAt: now,
  };
  const inserted = await insertEndpointRecord(endpoint).catch(async (err) => {
    await releaseUrl(workspaceId, url, endpointId);
    throw err;
  });
  if (!inserted) {
    await releaseUrl(workspaceId, url, endpointId);
    throw limitReached();
  }
  return { endpoint: endpointView(endpoint), secret: endpoint.secret };
}

function limitReached(): PlatenError {
  const message = `a workspace may register at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints`;
  return new PlatenError("WEBHOOK_ENDPOINT_LIMIT_EXCEEDED", {
    vars: { limit: MAX_ENDPOINTS_PER_WORKSPACE },
    details: [{ text: untranslated(message) }],
  });
}

function assertUniqueUrl(endpoints: StoredEndpoint[], url: string, exceptId?: string): void {
  if (endpoints.some((e) => e.url === url && e.endpointId !== exceptId)) throw duplicateUrl();
}

const duplicateUrl = () =>
  new PlatenError("VALIDATION_FAILED", {
    details: [
      {
        field: "url",
        text: webhookText.urlTaken,
      },
    ],
  });

/** Every endpoint of the workspace, oldest first (OpenAPI listWebhookEndpoints). */
export async function listWebhookEndpoints(workspaceId: string): Promise<WebhookEndpointView[]> {
  return (await listEndpointRecords(workspaceId)).map(endpointView);
}

/**
 * Read-modify-write of one endpoint with an optimistic check, retried on a lost race.
 * Applies the ownership rule (shared/webhooks/README.md#managing-endpoints-over-http): another integration's
 * endpoint is not found.
 */
async function modifyEndpoint(
  workspaceId: string,
  endpointId: string,
  deps: EndpointDeps,
  change: (current: StoredEndpoint, all: StoredEndpoint[]) => WebhookEndpoint,
): Promise<WebhookEndpoint> {
  for (let tries = 0; tries < 5; tries++) {
    const all = await listEndpointRecords(workspaceId);
    const current = all.find((e) => e.endpointId === endpointId);
    if (!current || !ownedBy(current, deps.clientId)) throw notFound();
    const next = { ...change(current, all), updatedAt: deps.clock.now().toISOString() };
    if (await replaceEndpointRecord(current, next)) return next;
  }
  throw new PlatenError("INTERNAL_ERROR", { cause: new Error(`endpoint ${endpointId} kept changing during update`) });
}

const ownedBy = (e: WebhookEndpoint, clientId: string | undefined) =>
  !clientId || !e.ownerClientId || e.ownerClientId === clientId;

/**
 * Updates url, enabled and the design filter (OpenAPI updateWebhookEndpoint, all optional). Re-enabling
 * clears a dispatcher's `disabledReason`; an ownerless endpoint becomes the client's. A new URL is claimed
 * before the endpoint is changed (of racing updates to one URL one wins) and the old one released after.
 */
export async function updateWebhookEndpoint(
  workspaceId: string,
  endpointId: string,
  patch: WebhookEndpointInput,
  deps: EndpointDeps,
): Promise<WebhookEndpointView> {
  const url = patch.url === undefined ? undefined : checkEndpointUrl(patch.url, deps.env);
  const endpoints = () => listEndpointRecords(workspaceId);
  if (url !== undefined && !(await claimUrl(workspaceId, url, endpointId, endpoints, deps.clock))) {
    throw duplicateUrl();
  }
  let previousUrl: string | undefined;
  const updated = await modifyEndpoint(workspaceId, endpointId, deps, (current, all) => {
    previousUrl = current.url;
    if (url !== undefined) assertUniqueUrl(all, url, endpointId);
    const enabled = checkEnabled(patch.enabled, current.enabled);
    const { disabledReason: _dropped, slot: _slot, revision: _revision, ...rest } = current;
    return {
      ...rest,
      ...(url !== undefined && { url }),
      enabled,
      ...resolveDesignFilter(patch, current),
      ...(!enabled && current.disabledReason && { disabledReason: current.disabledReason }),
      ...(!current.ownerClientId && deps.clientId && { ownerClientId: deps.clientId }),
    };
  }).catch(async (err) => {
    // Not changed (not found, another integration's, a taken URL): the claim, unless it was the current URL, goes.
    if (url !== undefined && url !== previousUrl) await releaseUrl(workspaceId, url, endpointId);
    throw err;
  });
  if (url !== undefined && previousUrl !== undefined && previousUrl !== url) {
    await releaseUrl(workspaceId, previousUrl, endpointId);
  }
  return endpointView(updated);
}

/** Removes an endpoint (OpenAPI deleteWebhookEndpoint); its delivery log stays until it expires. */
export async function deleteWebhookEndpoint(
  workspaceId: string,
  endpointId: string,
  deps: Pick<EndpointDeps, "clientId"> = {},
): Promise<void> {
  const current = await getEndpointRecord(workspaceId, endpointId);
  if (!current || !ownedBy(current, deps.clientId)) throw notFound();
  if (!(await deleteEndpointRecord(current))) throw notFound();
  await releaseUrl(workspaceId, current.url, endpointId);
}

/**
 * New signing secret (OpenAPI regenerateWebhookSecret). By default the old one stops at once and every
 * delivery carries one `v1=` (see shared/webhooks/README.md#signature-format). With `previousSecretHours` > 0
 * the old one keeps signing alongside for that long (two `v1=` values: receivers must accept several), so a
 * receiver can switch without failing deliveries; a later rotation replaces or ends it.
 *
 * `audit` writes the audit entry before the new secret is stored (after the endpoint was found): a
 * failed audit write leaves the old secret in place, and a change that then fails withdraws the entry,
 * so the caller gets the new secret or nothing changes.
 */
export async function rotateWebhookSecret(
  workspaceId: string,
  endpointId: string,
  deps: EndpointDeps,
  previousSecretHours = 0,
  audit?: AuditRecorder,
): Promise<{ id: string; secret: string; previousSecretExpiresAt?: string }> {
  const found = await getEndpointRecord(workspaceId, endpointId);
  if (!found || !ownedBy(found, deps.clientId)) throw notFound();
  const entry = await audit?.();
  const expires =
    previousSecretHours > 0
      ? new Date(deps.clock.now().getTime() + previousSecretHours * 3600 * 1000).toISOString()
      : undefined;
  const updated = await modifyEndpoint(
    workspaceId,
    endpointId,
    deps,
    ({ slot: _s, revision: _r, previousSecret: _p, previousSecretExpiresAt: _e, ...current }) => ({
      ...current,
      secret: generateSigningSecret(),
      ...(expires && { previousSecret: current.secret, previousSecretExpiresAt: expires }),
    }),
  ).catch(async (err) => {
    // modifyEndpoint throws only before its write: the secret did not change.
    if (entry) await withdrawAudit(entry);
    throw err;
  });
  return { id: endpointId, secret: updated.secret, ...(expires && { previousSecretExpiresAt: expires }) };
}

/**
 * The current signing secret (OpenAPI readWebhookSecret). Ownership is not checked: the
 * route admits only first-party login sessions, which that rule does not restrict.
 */
export async function readWebhookSecret(workspaceId: string, endpointId: string): Promise<{ secret: string }> {
  const current = await getEndpointRecord(workspaceId, endpointId);
  if (!current) throw notFound();
  return { secret: current.secret };
}

/**
 * The enabled endpoint whose URL equals a request's `webhookUrl` (OpenAPI generateSyncSingle), or undefined.
 * Equality is exact: the URL as registered.
 */
export async function findEnabledEndpointByUrl(workspaceId: string, url: string): Promise<WebhookEndpoint | undefined> {
  return (await listEndpointRecords(workspaceId)).find((e) => e.enabled && e.url === url);
}

/** Marks an endpoint disabled on the dispatcher's behalf (410 Gone). */
export async function disableWebhookEndpoint(
  workspaceId: string,
  endpointId: string,
  reason: string,
  clock: Clock,
): Promise<void> {
  await modifyEndpoint(workspaceId, endpointId, { clock, env: "" }, ({ slot: _s, revision: _r, ...current }) => ({
    ...current,
    enabled: false,
    disabledReason: reason,
  })).catch((err) => {
    if (!(err instanceof PlatenError && err.code === "WEBHOOK_ENDPOINT_NOT_FOUND")) throw err;
  });
}
