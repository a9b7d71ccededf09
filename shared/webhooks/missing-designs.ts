import { listActiveDesignHeads } from "#shared/designs/design-store.ts";
import type { WebhookEndpointView } from "./endpoints.ts";

/**
 * shared/webhooks/README.md#registering-endpoints: a `targetDesignIds` entry naming a design the workspace no
 * longer has (archived, or never had) stays in the list and is flagged in `missingDesignIds`, so a UI can warn.
 */
export async function withMissingDesigns<T extends WebhookEndpointView>(
  workspaceId: string,
  endpoints: T[],
): Promise<(T & { missingDesignIds?: string[] })[]> {
  if (!endpoints.some((e) => e.targetDesignIds.length > 0)) return endpoints;
  const known = new Set((await listActiveDesignHeads(workspaceId)).map((h) => h.id));
  return endpoints.map((e) => {
    const missing = e.targetDesignIds.filter((id) => !known.has(id));
    return missing.length ? { ...e, missingDesignIds: missing } : e;
  });
}
