/**
 * The render worker: a batch of queued files, each rendered in its workspace's fair share and settled, then
 * counted once per request. Brings the template engine: only the render function imports it.
 */
export { renderQueuedBatch } from "./render-batch.ts";
