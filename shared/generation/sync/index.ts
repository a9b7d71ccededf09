/**
 * Sync generation: a request prepared while its admission runs (a single rendered ahead), answered as soon as
 * its PDFs exist and stored right after; an idempotent replay rebuilt from what was stored. Brings the
 * template engine: only the sync function imports it.
 */
export { rememberPlan, renderAhead } from "./render-ahead.ts";
export { replaySync, toStoredSync } from "./replay-sync.ts";
export {
  type GeneratedFile,
  generateSync,
  type PreparedSync,
  prepareSync,
  STORE_DEADLINE_SECONDS,
  SyncDeadlineExceeded,
  type SyncGeneration,
} from "./sync-generation.ts";
