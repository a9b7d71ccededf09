import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { GALLERY_PK, type GalleryTemplate, pickTemplate, templateKey } from "./gallery.ts";
import { designDetailText } from "./design-detail-text.ts";

/** Templates a gallery page shows at most. */
export const GALLERY_PAGE_SIZE = 30;
/**
 * DynamoDB queries one page may make: a search that matches little answers a shorter page (even
 * an empty one) with a `next` cursor rather than read on through the whole gallery.
 */
const MAX_QUERIES = 4;

export interface GalleryFilter {
  /** Matches label, description and publisher, case-insensitively. */
  q?: string;
  /** One tag, exactly. */
  tag?: string;
  /** Where the page starts: the `next` of the previous page. */
  cursor?: string;
  /** Templates per page, 1 to GALLERY_PAGE_SIZE (the default). */
  limit?: number;
}

export interface GalleryPage {
  templates: GalleryTemplate[];
  /** The cursor of the next page, when there may be one. */
  next?: string;
}

/**
 * One page of the gallery (GET {auth_url}/public/templates, the site's /templates), newest share
 * first: DynamoDB Queries with Limit and ExclusiveStartKey, never the whole partition. The cursor
 * is the last template's id: opaque to callers, checked before use.
 */
export async function searchTemplates(filter: GalleryFilter): Promise<GalleryPage> {
  const limit = Math.min(Math.max(1, filter.limit ?? GALLERY_PAGE_SIZE), GALLERY_PAGE_SIZE);
  const matches = matcher(filter);
  const templates: GalleryTemplate[] = [];
  let start = filter.cursor === undefined ? undefined : templateKey(checkCursor(filter.cursor));
  for (let query = 0; query < MAX_QUERIES; query++) {
    // One more than the page needs: a full page then knows whether anything follows.
    const out = await awsClients().ddb.send(
      new QueryCommand({
        TableName: config().tables.designs,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :t)",
        ExpressionAttributeValues: { ":pk": GALLERY_PK, ":t": "TEMPLATE#" },
        Limit: limit - templates.length + 1,
        ...(start && { ExclusiveStartKey: start }),
      }),
    );
    const items = (out.Items ?? []).map(pickTemplate);
    for (const [i, t] of items.entries()) {
      if (!matches(t)) continue;
      templates.push(t);
      // Full, and more was read after it: the next page starts after this one.
      if (templates.length === limit && (i < items.length - 1 || out.LastEvaluatedKey))
        return { templates, next: t.id };
    }
    if (!out.LastEvaluatedKey) return { templates };
    start = out.LastEvaluatedKey as ReturnType<typeof templateKey>;
  }
  return { templates, next: start!.sk.slice("TEMPLATE#".length) };
}

function matcher(filter: GalleryFilter): (t: GalleryTemplate) => boolean {
  const needle = filter.q?.trim().toLowerCase();
  return (t) =>
    (!needle || [t.label, t.description ?? "", t.publisher].some((s) => s.toLowerCase().includes(needle))) &&
    (!filter.tag || t.tags.includes(filter.tag));
}

/** A cursor is a template id; anything else is 400 VALIDATION_FAILED naming `cursor`. */
function checkCursor(cursor: string): string {
  if (/^[0-9A-Za-z]{1,64}$/.test(cursor)) return cursor;
  throw new PlatenError("VALIDATION_FAILED", {
    details: [
      {
        field: "cursor",
        text: designDetailText.cursor,
      },
    ],
  });
}
