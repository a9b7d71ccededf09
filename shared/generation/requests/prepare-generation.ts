import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import type { DesignVersion } from "#shared/designs/design-store.ts";
import { findDesignVersion, findVersionAhead, loadBundle } from "#shared/designs/find-design-version.ts";
import { refuseUnprotectable } from "#shared/designs/pdf-standard.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { checkParams } from "./params-check.ts";
import type { GenerationRequest } from "./request-schema.ts";
import { paramsField } from "./validate-request.ts";
import { requestText } from "./request-text.ts";

export interface PreparedGeneration {
  design: DesignVersion;
  bundle: DesignBundle;
  /** Per content item: the params the template sees (schema keys, defaults applied). */
  values: Record<string, unknown>[];
  /**
   * Rejects DESIGN_VERSION_NOT_FOUND if the design turns out archived: its head is read
   * beside the templating (find-design-version.ts findVersionAhead); awaited before any effect.
   */
  current: Promise<void>;
}

/**
 * What both sync and async refuse before acceptance: a webhookUrl that is not an enabled
 * endpoint (OpenAPI generateSyncSingle) and a missing design or version. Another workspace's design is
 * simply not found; generation always names a version, so it is DESIGN_VERSION_NOT_FOUND.
 */
export async function resolveDesign(workspaceId: string, request: GenerationRequest): Promise<DesignVersion> {
  // The endpoints' module (with the audit log's) loads only for a request that names a webhookUrl.
  const named = request.webhookUrl;
  const isEndpoint = async (url: string) =>
    (await import("#shared/webhooks/endpoints.ts")).findEnabledEndpointByUrl(workspaceId, url);
  if (named !== undefined && !(await isEndpoint(named))) {
    // OpenAPI generateSyncSingle: it must equal the URL of an enabled endpoint of this workspace, exactly.
    throw new PlatenError("WEBHOOK_URL_NOT_ALLOWED", {
      details: [
        {
          field: "webhookUrl",
          code: "WEBHOOK_URL_NOT_ALLOWED",
          text: requestText.webhookNotRegistered,
        },
      ],
    });
  }
  const design = await findDesignVersion(workspaceId, request.designId, request.version).catch((err) => {
    if (err instanceof PlatenError && err.code === "DESIGN_NOT_FOUND")
      throw new PlatenError("DESIGN_VERSION_NOT_FOUND");
    throw err;
  });
  refuseUnprotectable(design.manifest, request); // PDF/A and signed designs: 400 naming content.protection
  return design;
}

/**
 * Sync: every item's params are checked up front; one mismatch refuses the request
 * (OpenAPI generateSyncSingle).
 */
export async function prepareGeneration(workspaceId: string, request: GenerationRequest): Promise<PreparedGeneration> {
  const { design, current } =
    request.webhookUrl === undefined && request.version !== undefined
      ? await findVersionAhead(workspaceId, request.designId, request.version)
      : { design: await resolveDesign(workspaceId, request), current: Promise.resolve() };
  try {
    refuseUnprotectable(design.manifest, request);
    const checked = request.contents.map((c, i) =>
      checkParams(design.manifest.parameters, c.params, paramsField(request.mode, i)),
    );
    const mismatches = checked.flatMap((c) => c.mismatches);
    if (mismatches.length) throw new PlatenError("PARAMS_TYPE_MISMATCH", { details: mismatches });
    return { design, bundle: await loadBundle(design), values: checked.map((c) => c.values), current };
  } catch (err) {
    await current; // an archived design is refused first, as when its head was read before
    throw err;
  }
}
