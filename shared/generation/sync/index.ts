/**
 * Sync generation as one pipeline: the container's memory (made once by the handler), the work started
 * while admission runs (a single rendered ahead), the request generated and answered as soon as its PDFs
 * exist, stored right after; an idempotent replay rebuilt from what was stored. Brings the template engine:
 * only the sync function imports it.
 */
export { type EarlyWork, startEarlyWork } from "./early-work.ts";
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
export { type SyncMemory, syncMemory } from "./sync-memory.ts";
