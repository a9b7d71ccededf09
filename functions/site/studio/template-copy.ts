import type { DesignGrant } from "#shared/auth/design-access.ts";
import { getBundle, getThumbnail } from "#shared/designs/design-store.ts";
import { getTemplate } from "#shared/designs/gallery.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { publishDeps } from "./preview-render.ts";
import { auditDesign } from "./studio-access.ts";

/**
 * A gallery template copied into a workspace as a new design: the same bundle and thumbnail, so
 * it generates the same documents (what `POST /designs {"fromTemplate"}` of the design API does).
 */
export async function copyTemplate(grant: DesignGrant, templateId: string, createdBy: string) {
  const template = await getTemplate(templateId);
  const [bundle, thumbnail] = await Promise.all([
    getBundle(template.bundleKey),
    template.thumbnailKey ? getThumbnail(template.thumbnailKey) : undefined,
  ]);
  const published = await publishDesign(
    {
      workspaceId: grant.workspaceId,
      bundle,
      createdBy,
      note: `copied from template ${template.id}`,
      ...(thumbnail && { thumbnail }),
    },
    await publishDeps(),
  );
  await auditDesign(grant, "design.create", published.id, { version: "1", fromTemplate: template.id });
  return published;
}
