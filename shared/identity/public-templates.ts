import { config } from "#shared/aws/config.ts";
import { queryAll } from "#shared/aws/query-all.ts";

/** One design a workspace has marked public (gallery entry). */
export interface PublicTemplate {
  id: string;
  label: string;
  latestVersion: number;
  updatedAt: string;
}

/**
 * shared/identity/README.md#auth_url: the public template gallery, no authentication. Gallery entries live in
 * the designs table under `PUBLIC` (one item per design a workspace published to the gallery);
 * `query` filters labels case-insensitively. No entries is a correct answer: an empty list.
 */
export async function searchPublicTemplates(
  query: string | undefined,
): Promise<{ templates: PublicTemplate[]; total: number }> {
  const items = await queryAll({
    TableName: config().tables.designs,
    KeyConditionExpression: "pk = :pk",
    ExpressionAttributeValues: { ":pk": "PUBLIC" },
  });
  const needle = query?.trim().toLowerCase();
  const templates = items
    .map((i) => ({
      id: String(i.designId),
      label: String(i.label),
      latestVersion: Number(i.latestVersion),
      updatedAt: String(i.updatedAt),
    }))
    .filter((t) => !needle || t.label.toLowerCase().includes(needle));
  return { templates, total: templates.length };
}
