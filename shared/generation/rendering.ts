/**
 * What the rendering functions (sync generation, the render worker) use of generation.
 * Apart from ./index.ts because all of it loads Chromium, which no other function's bundle
 * may carry (test/infra/bundle-contents.test.ts).
 */
export { fairRenderingFromEnv } from "./fair-render.ts";
export { rememberPlan, renderAhead } from "./render-ahead.ts";
export { renderQueuedBatch } from "./render-batch.ts";
export { generateSync, type PreparedSync, prepareSync, SyncDeadlineExceeded } from "./sync-generation.ts";
