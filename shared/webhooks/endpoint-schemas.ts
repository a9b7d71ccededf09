import * as z from "zod";
import { MAX_PREVIOUS_SECRET_HOURS } from "./webhook-settings.ts";

/**
 * Bodies of the webhook management routes (see shared/webhooks/README.md#registering-endpoints,
 * shared/webhooks/README.md#managing-endpoints-over-http): the handlers validate with these and the
 * OpenAPI document is generated from them, so the two cannot disagree. URL rules beyond the shape (https,
 * public addresses) are the domain's (endpoint-input.ts).
 */
// The descriptions (`meta`) show in the OpenAPI document and the site's API reference (/docs/api).
const url = z
  .string({ message: "must be a string" })
  .min(1, "must not be empty")
  .max(2048, "must be at most 2048 characters")
  .meta({ description: "The https URL, on a public address, that receives the webhook POSTs." });
const designFilterType = z
  .enum(["all", "selected"], { message: "must be all or selected" })
  .meta({ description: "`all` designs, or only the `selected` ones of `targetDesignIds`." });
const designId = z
  .string({ message: "must be a string" })
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters");
const targetDesignIds = z
  .array(designId, { message: "must be an array of design ids" })
  .max(100, "may hold at most 100 ids")
  .meta({ description: "The designs a `selected` endpoint is notified for (at most 100 ids)." });
const enabled = z
  .boolean({ message: "must be true or false" })
  .meta({ description: "`false` pauses deliveries to the endpoint." });

/** POST /workspace/{workspaceId}/webhook-endpoints */
export const createEndpointBody = z
  .object({ url, designFilterType: designFilterType.optional(), targetDesignIds: targetDesignIds.optional() })
  .strict();

/** PATCH /workspace/{workspaceId}/webhook-endpoints/{endpointId}: every field optional. */
export const updateEndpointBody = z
  .object({
    url: url.optional(),
    enabled: enabled.optional(),
    designFilterType: designFilterType.optional(),
    targetDesignIds: targetDesignIds.optional(),
  })
  .strict();

/** PATCH /workspace/webhook and /workspace/{workspaceId}/webhook: the single-URL setting. */
export const workspaceWebhookBody = z.object({ url, enabled: enabled.optional() }).strict();

/** An endpoint as the API shows it: never the secret, except where a route says so. */
export const endpointResponse = z.object({
  id: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  designFilterType,
  targetDesignIds: z.array(z.string()),
  /** Ids of `targetDesignIds` that name no design of the workspace (deleted, or never existed). */
  missingDesignIds: z.array(z.string()).optional(),
  ownerClientId: z.string().optional(),
  disabledReason: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const endpointListResponse = z.object({ items: z.array(endpointResponse) });
export const endpointWithSecretResponse = endpointResponse.extend({ secret: z.string() });
export const secretResponse = z.object({ secret: z.string() });
export const regeneratedSecretResponse = z.object({
  id: z.string(),
  secret: z.string(),
  /** Only when the rotation kept the previous secret signing. */
  previousSecretExpiresAt: z.string().optional(),
});

/**
 * POST …/secret/regenerate: no body, or `previousSecretHours` to keep the old secret signing
 * beside the new one (two `v1=` values) while receivers switch.
 */
export const regenerateSecretBody = z
  .object({
    previousSecretHours: z
      .number({ message: "must be a whole number of hours" })
      .int("must be a whole number of hours")
      .min(0, "must be 0 or more")
      .max(MAX_PREVIOUS_SECRET_HOURS, `must be at most ${MAX_PREVIOUS_SECRET_HOURS}`)
      .meta({ description: "Keep the previous secret signing beside the new one for this many hours (default 0)." })
      .optional(),
  })
  .strict();
