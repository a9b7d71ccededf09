import { systemClock } from "#shared/clock.ts";
import { managementHandler } from "#shared/http/management-handler.ts";
import { rotateAppKey } from "#shared/workspaces/app-key-rotation.ts";

/**
 * POST /v1/workspace/{workspaceId}/application-token/regenerate (OpenAPI rotateApplicationKey, ADMIN): the new
 * key once; the old one is refused from the next request on. A concurrent rotation that
 * lost answers 409 APP_KEY_ROTATION_CONFLICT with the winner's lastRotatedAt.
 */
export const handler = managementHandler(
  "rotate-app-key",
  async function handleRotateApplicationKey(_req, { grant, audit }) {
    // Audited before the rotation commits: a failed audit write must not cost the caller the new key.
    const out = await rotateAppKey(grant.workspaceId, systemClock, () => audit("application-key.rotate"));
    return { status: 200, headers: { "Cache-Control": "no-store" }, json: out };
  },
);
