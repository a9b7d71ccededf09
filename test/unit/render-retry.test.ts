import { describe, expect, it } from "vitest";
import { queues } from "#shared/definitions/queues.ts";
import { readRetrySeconds, retryDelaySeconds } from "#shared/generation/scheduling/index.ts";

/**
 * A render that failed for a transient reason comes back after a back-off, not the render queue's
 * visibility time-out (render-queue.ts `retryLater`; over HTTP: test/faults/render-retry.test.ts).
 */
describe("the retry delay of a failed render", () => {
  const noJitter = () => 0;
  it.each([
    { receiveCount: 1, first: 30, seconds: 30 },
    { receiveCount: 2, first: 30, seconds: 120 },
    { receiveCount: 3, first: 30, seconds: 480 },
    { receiveCount: 4, first: 30, seconds: 720 },
    { receiveCount: 5, first: 30, seconds: 720 },
    { receiveCount: 60, first: 30, seconds: 720 },
    { receiveCount: 0, first: 30, seconds: 30 },
    { receiveCount: 1, first: 1, seconds: 1 },
    { receiveCount: 3, first: 1, seconds: 16 },
    { receiveCount: 9, first: 1, seconds: 24 },
    // A scaled local stack (720 s × 0.005 = 3.6 s visibility): the same waits, scaled.
    { receiveCount: 1, first: 0.15, seconds: 0 },
    { receiveCount: 2, first: 0.15, seconds: 1 },
    { receiveCount: 3, first: 0.15, seconds: 2 },
    { receiveCount: 4, first: 0.15, seconds: 4 },
  ])("delivery $receiveCount, first wait $first s: $seconds s", ({ receiveCount, first, seconds }) => {
    expect(retryDelaySeconds(receiveCount, first, noJitter)).toBe(seconds);
  });

  it("never waits longer than the visibility time-out with the defaults, which every retry waited before", () => {
    expect(retryDelaySeconds(100, 30, noJitter)).toBe(queues.render.visibilityTimeoutSeconds);
  });

  it("the four waits before the fifth and last attempt add up to about 22 minutes", () => {
    const waits = [1, 2, 3, 4].map((n) => retryDelaySeconds(n, 30, noJitter));
    expect(waits.reduce((a, b) => a + b, 0)).toBe(1350);
    expect(queues.render.maxReceiveCount).toBe(5);
  });

  it("adds at most a tenth of jitter", () => {
    expect(retryDelaySeconds(1, 30, () => 0.999)).toBe(33);
    expect(retryDelaySeconds(4, 30, () => 0.999)).toBe(792);
  });

  it("reads the first wait from PLATEN_RENDER_RETRY_SECONDS, 30 s by default; anything but a positive number is named", () => {
    expect(readRetrySeconds({})).toBe(30);
    expect(readRetrySeconds({ PLATEN_RENDER_RETRY_SECONDS: "2" })).toBe(2);
    expect(readRetrySeconds({ PLATEN_RENDER_RETRY_SECONDS: "0.15" })).toBe(0.15);
    for (const bad of ["0", "-1", "soon", "Infinity"])
      expect(() => readRetrySeconds({ PLATEN_RENDER_RETRY_SECONDS: bad })).toThrow(/PLATEN_RENDER_RETRY_SECONDS/);
  });
});
