import { randomBytes } from "node:crypto";
import type { ErrorDetail } from "#shared/errors/platen-error.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import type { DesignFilterType, WebhookEndpoint } from "./endpoint-store.ts";
import { checkWebhookUrl } from "./target-guard.ts";
import { webhookText } from "./webhook-text.ts";
import { fillBoth } from "#shared/i18n/texts.ts";

/**
 * Fields a caller may set on create or update (see shared/webhooks/README.md#registering-endpoints,
 * shared/webhooks/README.md#managing-endpoints-over-http).
 */
export interface WebhookEndpointInput {
  url?: string;
  enabled?: boolean;
  designFilterType?: DesignFilterType;
  targetDesignIds?: string[];
}

const MAX_TARGET_DESIGNS = 100;
const MAX_DESIGN_ID_LENGTH = 64;

const invalid = (details: ErrorDetail[]) => new PlatenError("VALIDATION_FAILED", { details });

/**
 * A new signing secret: `whsec_` + 32 random bytes (base64url, 43 characters). Shown to
 * the customer once on creation or rotation.
 */
export const generateSigningSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`;

/**
 * Checks a target URL when it is saved (target-guard rules: https, no credentials, public
 * IP literals; in env `local` also http://localhost / 127.0.0.1). The URL is stored as
 * given, because a request's `webhookUrl` must equal it exactly (OpenAPI generateSyncSingle).
 */
export function checkEndpointUrl(url: unknown, env: string): string {
  if (typeof url !== "string" || url === "") throw invalid([{ field: "url", text: webhookText.urlRequired }]);
  const checked = checkWebhookUrl(url, { env });
  if (!checked.ok)
    throw invalid([
      {
        field: "url",
        text: fillBoth(webhookText.urlNotAllowed, { reason: checked.reason }),
      },
    ]);
  return url;
}

function checkDesignIds(ids: unknown): string[] {
  if (!Array.isArray(ids))
    throw invalid([
      {
        field: "targetDesignIds",
        text: webhookText.targetsNotArray,
      },
    ]);
  if (ids.length > MAX_TARGET_DESIGNS) {
    throw invalid([
      {
        field: "targetDesignIds",
        text: fillBoth(webhookText.tooManyTargets, { max: MAX_TARGET_DESIGNS }),
      },
    ]);
  }
  for (const [i, id] of ids.entries()) {
    if (typeof id !== "string" || id === "" || id.length > MAX_DESIGN_ID_LENGTH) {
      throw invalid([
        {
          field: `targetDesignIds.${i}`,
          text: webhookText.notDesignId,
        },
      ]);
    }
  }
  return [...new Set(ids as string[])];
}

/**
 * The design filter after applying `input` to `current`: shared/webhooks/README.md#registering-endpoints:
 * `selected` with no ids as `all`. Giving ids without a type means `selected`. Deleted designs stay listed.
 */
export function resolveDesignFilter(
  input: Pick<WebhookEndpointInput, "designFilterType" | "targetDesignIds">,
  current: Pick<WebhookEndpoint, "designFilterType" | "targetDesignIds"> = {
    designFilterType: "all",
    targetDesignIds: [],
  },
): Pick<WebhookEndpoint, "designFilterType" | "targetDesignIds"> {
  const type = input.designFilterType ?? (input.targetDesignIds !== undefined ? "selected" : current.designFilterType);
  if (type !== "all" && type !== "selected") {
    throw invalid([
      {
        field: "designFilterType",
        text: webhookText.filterType,
      },
    ]);
  }
  const ids = input.targetDesignIds !== undefined ? checkDesignIds(input.targetDesignIds) : current.targetDesignIds;
  if (type === "selected" && ids.length === 0) return { designFilterType: "all", targetDesignIds: [] };
  return { designFilterType: type, targetDesignIds: type === "all" ? [] : ids };
}

/** `enabled` must be a boolean when given. */
export function checkEnabled(enabled: unknown, fallback: boolean): boolean {
  if (enabled === undefined) return fallback;
  if (typeof enabled !== "boolean")
    throw invalid([
      {
        field: "enabled",
        text: webhookText.enabledBoolean,
      },
    ]);
  return enabled;
}

/** The secrets to sign with right now: current first, the previous one during the overlap window. */
export function activeSigningSecrets(
  endpoint: Pick<WebhookEndpoint, "secret" | "previousSecret" | "previousSecretExpiresAt">,
  now: Date,
): string[] {
  const previousValid =
    endpoint.previousSecret &&
    endpoint.previousSecretExpiresAt &&
    Date.parse(endpoint.previousSecretExpiresAt) > now.getTime();
  return previousValid ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}
