import { managementHandler } from "#shared/http/management-handler.ts";
import { defaultSigningDeps, listSigningIdentities } from "#shared/signing/identities.ts";

/**
 * GET /v1/workspace/{workspaceId}/signing-identities (OpenAPI listSigningIdentities, READ): every identity
 * of the workspace, oldest first, never a key.
 */
export const handler = managementHandler(
  "list-identities",
  async function handleListSigningIdentities(_req, { grant }) {
    const items = await listSigningIdentities(grant.workspaceId, defaultSigningDeps());
    return { status: 200, headers: { "Cache-Control": "no-store" }, json: { items } };
  },
);
