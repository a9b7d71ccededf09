/**
 * Settling an async file exactly once (its pages counted once: billed = delivered), ending a request once
 * (finalization, its events through the outbox), and the usage reconciliation that checks the result.
 */
export { finalizeWith } from "./finalize-request.ts";
export { reconcileUsage, storedReconcilePorts, type UsageReconciliation } from "./reconcile-usage.ts";
export {
  COUNT_TAKEOVER_SECONDS,
  type ClaimedFile,
  claimOnce,
  countSettled,
  dropParams,
  failAndMaybeFinalize,
  finalFilesOf,
  finishClaimed,
  finishOthersClaim,
  finishPending,
  pageSpreadOf,
  type SettledFile,
  settledFileOf,
} from "./settle-file.ts";
