import { DESIGN_PAGE_SIZE } from "#shared/designs/design-pages.ts";
import { type DesignHead, listDesignHeads } from "#shared/designs/design-store.ts";

/*
 * A workspace's designs as lists show them (the design API, the site's dashboard and designs page): reads only,
 * apart from design-lifecycle.ts, whose bundle checks (LiquidJS, the e-invoice rules) a list never needs.
 */

/** A design as the design API answers it. */
export function designDetail(head: DesignHead, baseUrl: string) {
  return {
    id: head.id,
    label: head.label,
    description: head.description ?? "",
    latestVersion: head.latestVersion,
    createdAt: head.createdAt,
    updatedAt: head.updatedAt,
    ...(head.updatedBy && { updatedBy: head.updatedBy }),
    thumbnail: thumbnailUrl(baseUrl, head),
    hasDraft: head.draftKey !== undefined,
    ...(head.archived && { archived: true }),
  };
}

const thumbnailUrl = (baseUrl: string, head: Pick<DesignHead, "id" | "latestVersion">) =>
  `${baseUrl}/file/designs/${encodeURIComponent(head.id)}/thumbnail?version=${head.latestVersion}`;

/**
 * GET /designs: the spec's list body (30 a page, newest change first) with `description`,
 * `hasDraft` and `archived` added; `q` matches labels (case-insensitive); `archived=true`
 * (ADMIN) lists the archived designs beside the others.
 */
export async function listDesignsPage(
  workspaceId: string,
  opts: { page: number; q?: string; archived: boolean },
  baseUrl: string,
) {
  const needle = opts.q?.trim().toLowerCase();
  const heads = (await listDesignHeads(workspaceId))
    .filter((h) => (opts.archived || !h.archived) && (!needle || h.label.toLowerCase().includes(needle)))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  const start = (opts.page - 1) * DESIGN_PAGE_SIZE;
  return {
    designs: heads.slice(start, start + DESIGN_PAGE_SIZE).map((h) => {
      const { createdAt: _c, ...item } = designDetail(h, baseUrl);
      return { ...item, archived: h.archived === true };
    }),
    total: heads.length,
    page: opts.page,
    pageSize: DESIGN_PAGE_SIZE,
    totalPages: Math.max(1, Math.ceil(heads.length / DESIGN_PAGE_SIZE)),
  };
}
