import { PlatenError } from "#shared/errors/platen-error.ts";
import { listActiveDesignHeads } from "./design-store.ts";
import { designDetailText } from "./design-detail-text.ts";

export const DESIGN_PAGE_SIZE = 30;

export interface DesignListBody {
  designs: { id: string; label: string; latestVersion: number; thumbnail: string; updatedAt: string }[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** OpenAPI listDesigns: `page` is a 1-based integer; anything else is a 400 naming the field. */
export function parsePage(raw: string | undefined): number {
  if (raw === undefined) return 1;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        {
          field: "page",
          code: "VALIDATION_FAILED",
          text: designDetailText.pageNumber,
        },
      ],
    });
  }
  return Number(raw);
}

/** OpenAPI listDesigns: newest first (then by id, so pages are stable), 30 per page. */
export async function listDesigns(workspaceId: string, page: number, baseUrl: string): Promise<DesignListBody> {
  const heads = await listActiveDesignHeads(workspaceId);
  heads.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  const start = (page - 1) * DESIGN_PAGE_SIZE;
  return {
    designs: heads.slice(start, start + DESIGN_PAGE_SIZE).map((h) => ({
      id: h.id,
      label: h.label,
      latestVersion: h.latestVersion,
      thumbnail: `${baseUrl}/file/designs/${encodeURIComponent(h.id)}/thumbnail?version=${h.latestVersion}`,
      updatedAt: h.updatedAt,
    })),
    total: heads.length,
    page,
    pageSize: DESIGN_PAGE_SIZE,
    totalPages: Math.max(1, Math.ceil(heads.length / DESIGN_PAGE_SIZE)),
  };
}
