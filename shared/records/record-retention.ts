import * as z from "zod";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { RETENTION_YEARS, type RecordStore, type RetentionYears } from "./record-store.ts";

/** `PUT /v1/workspace/{workspaceId}/record-retention`'s body and both routes' answer. */
export const recordRetentionBody = z
  .object({ years: z.union(RETENTION_YEARS.map((y) => z.literal(y))).meta({ description: "7 or 10" }) })
  .strict();

/**
 * Lengthens a workspace's record retention (README.md#retention); the same retention again is no change.
 * @throws PlatenError RECORD_RETENTION_SHORTENED (409) for a shorter one
 */
export async function lengthenRecordRetention(
  store: RecordStore,
  workspaceId: string,
  years: RetentionYears,
): Promise<{ years: RetentionYears; changed: boolean }> {
  const current = await store.retentionYears(workspaceId);
  if (years < current) throw new PlatenError("RECORD_RETENTION_SHORTENED", { vars: { current, asked: years } });
  if (years === current) return { years, changed: false };
  if (!(await store.lengthenRetention(workspaceId, years))) {
    const now = await store.retentionYears(workspaceId);
    throw new PlatenError("RECORD_RETENTION_SHORTENED", { vars: { current: now, asked: years } });
  }
  return { years, changed: true };
}
