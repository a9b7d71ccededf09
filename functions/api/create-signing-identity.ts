import { managementHandler } from "#shared/http/management-handler.ts";
import { addSigningIdentity, createIdentityRequest, defaultSigningDeps } from "#shared/signing/identities.ts";

/**
 * POST /v1/workspace/{workspaceId}/signing-identities (OpenAPI createSigningIdentity, ADMIN): 201 with the
 * identity's certificate facts; its private key is sealed and never answered (shared/signing/README.md#identities).
 */
export const handler = managementHandler(
  "create-identity",
  async function handleCreateSigningIdentity(_req, { grant, body }) {
    const view = await addSigningIdentity(
      grant.workspaceId,
      body(createIdentityRequest),
      grant.actor,
      defaultSigningDeps(),
    );
    return { status: 201, headers: { "Cache-Control": "no-store" }, json: view };
  },
);
