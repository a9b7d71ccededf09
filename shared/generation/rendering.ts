/**
 * What the rendering functions (sync generation, the render worker) use of generation.
 * Apart from ./index.ts because all of it loads Chromium, which no other function's bundle
 * may carry (test/infra/bundle-contents.test.ts).
 */
export { fairRenderingFromEnv } from "#shared/generation/scheduling/fair-render.ts";
export { rememberPlan, renderAhead } from "#shared/generation/sync/render-ahead.ts";
export { renderQueuedBatch } from "#shared/generation/worker/render-batch.ts";
export {
  generateSync,
  type PreparedSync,
  prepareSync,
  SyncDeadlineExceeded,
} from "#shared/generation/sync/sync-generation.ts";
