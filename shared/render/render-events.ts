import { channel } from "node:diagnostics_channel";

/**
 * Milestones of the renderer, published on the diagnostics channel `platen.render`
 * (`diagnostics_channel.subscribe("platen.render", …)`): a cold-start probe, a tracer or
 * the bench sees when the first browser is up and when a PDF exists without the renderer
 * knowing about them. Publishing costs nothing while nobody subscribes.
 */
export const RENDER_CHANNEL = "platen.render";

export type RenderEvent =
  | { event: "browser-launched" }
  | { event: "pdf-printed"; bytes: number }
  /** A browser's periodic collection (BrowserPool `gcEvery`): its DOM nodes before and after, and how long it took. */
  | { event: "garbage-collected"; ms: number; nodesBefore: number; nodesAfter: number };

const renderChannel = channel(RENDER_CHANNEL);

/** Whether anyone listens: an event that costs work to gather is gathered only then. */
export const renderEventsWatched = (): boolean => renderChannel.hasSubscribers;

/** Tells the subscribers of {@link RENDER_CHANNEL}, if any. */
export function publishRenderEvent(event: RenderEvent): void {
  if (renderChannel.hasSubscribers) renderChannel.publish(event);
}
