/**
 * When and where a queued file renders: the render queue's messages, and the fair share of rendering between
 * workspaces (leases in the usage table, spread over lease items; a render that cannot start is deferred).
 */
export {
  DEFERRED,
  type FairRendering,
  fairRenderingFromEnv,
  type RenderSlots,
  renderSlots,
} from "./fair-render.ts";
export { deferDelaySeconds, type FairShareConfig, type Leases, type RenderShare } from "./fair-share.ts";
export { dropAllRenderLeases } from "./render-lease-table.ts";
export type { LeaseAverage, LeaseEnd, LeaseStore } from "./render-leases.ts";
export {
  DEFAULT_RETRY_SECONDS,
  type FailedDelivery,
  parseRenderMessage,
  readRetrySeconds,
  type RenderMessage,
  retryDelaySeconds,
  retryLater,
  sendDelayedRenderMessages,
  sendRenderMessages,
  sendRenderMessagesReporting,
} from "./render-queue.ts";
