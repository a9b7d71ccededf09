import { managementHandler } from "#shared/http/management-handler.ts";
import { defaultSigningDeps, removeSigningIdentity } from "#shared/signing/identities.ts";

/**
 * DELETE /v1/workspace/{workspaceId}/signing-identities/{identityId} (OpenAPI deleteSigningIdentity, ADMIN):
 * 204. Signed designs naming its label then fail their files with SIGNING_FAILED.
 */
export const handler = managementHandler("delete-identity", async function handleDeleteSigningIdentity(req, { grant }) {
  await removeSigningIdentity(grant.workspaceId, req.path("identityId"), grant.actor, defaultSigningDeps());
  return { status: 204, body: Buffer.alloc(0), contentType: "application/json" };
});
