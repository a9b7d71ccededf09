import { describe, expect, it } from "vitest";
import {
  decideAfterAttempt,
  MAX_ATTEMPTS,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
  retryDelayMs,
} from "#shared/webhooks/retry-schedule.ts";
import { sqsDelaySeconds } from "#shared/webhooks/webhook-queue.ts";

const s = 1000;
const min = 60 * s;
const h = 60 * min;

describe("retry schedule (see shared/webhooks/README.md#delivery-retries-and-the-delivery-log)", () => {
  it("is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts", () => {
    expect(RETRY_SCHEDULE_MS).toEqual([5 * s, 5 * min, 30 * min, 2 * h, 5 * h, 10 * h, 14 * h, 20 * h, 24 * h]);
    expect(MAX_ATTEMPTS).toBe(10);
  });

  it("jitters by ±10 % and scales (PLATEN_WEBHOOK_DELAY_SCALE)", () => {
    expect(retryDelayMs(1, { scale: 1, random: () => 0 })).toBe(4500);
    expect(retryDelayMs(1, { scale: 1, random: () => 1 })).toBe(5500);
    expect(retryDelayMs(2, { scale: 1, random: () => 0.5 })).toBe(5 * min);
    expect(retryDelayMs(1, { scale: 0.01, random: () => 0.5 })).toBe(50);
    expect(retryDelayMs(10, { scale: 1 })).toBeUndefined();
  });
});

describe("decideAfterAttempt", () => {
  const opts = { scale: 1, random: () => 0.5, now: new Date("2026-01-01T00:00:00Z") };

  it("2xx is success; 3xx, 4xx, 5xx, time-outs and connection errors are retried on the schedule", () => {
    expect(decideAfterAttempt({ statusCode: 204, latencyMs: 1 }, 1, false, opts)).toEqual({ outcome: "delivered" });
    for (const statusCode of [301, 302, 400, 404, 500]) {
      expect(decideAfterAttempt({ statusCode, latencyMs: 1 }, 1, false, opts)).toEqual({
        outcome: "retry",
        delayMs: 5 * s,
      });
    }
    expect(decideAfterAttempt({ error: "timed out after 15000 ms", latencyMs: 15000 }, 3, false, opts)).toEqual({
      outcome: "retry",
      delayMs: 30 * min,
    });
  });

  it("410 fails the delivery and disables the endpoint, without retries", () => {
    expect(decideAfterAttempt({ statusCode: 410, latencyMs: 1 }, 1, false, opts)).toEqual({
      outcome: "failed",
      deadLetter: false,
      disableEndpoint: true,
    });
  });

  it("honours Retry-After on 429 and 503 only (scaled like the schedule)", () => {
    expect(decideAfterAttempt({ statusCode: 429, retryAfter: "120", latencyMs: 1 }, 1, false, opts)).toEqual({
      outcome: "retry",
      delayMs: 120 * s,
    });
    expect(
      decideAfterAttempt({ statusCode: 503, retryAfter: "120", latencyMs: 1 }, 1, false, { ...opts, scale: 0.01 }),
    ).toEqual({ outcome: "retry", delayMs: 1200 });
    expect(decideAfterAttempt({ statusCode: 500, retryAfter: "120", latencyMs: 1 }, 1, false, opts)).toEqual({
      outcome: "retry",
      delayMs: 5 * s,
    });
    expect(decideAfterAttempt({ statusCode: 429, latencyMs: 1 }, 2, false, opts)).toEqual({
      outcome: "retry",
      delayMs: 5 * min,
    });
  });

  it("dead-letters after the tenth attempt; a manual redelivery is one attempt", () => {
    expect(decideAfterAttempt({ statusCode: 500, latencyMs: 1 }, 9, false, opts)).toEqual({
      outcome: "retry",
      delayMs: 24 * h,
    });
    expect(decideAfterAttempt({ statusCode: 500, latencyMs: 1 }, 10, false, opts)).toEqual({
      outcome: "failed",
      deadLetter: true,
      disableEndpoint: false,
    });
    expect(decideAfterAttempt({ statusCode: 500, latencyMs: 1 }, 4, true, opts)).toEqual({
      outcome: "failed",
      deadLetter: false,
      disableEndpoint: false,
    });
  });
});

describe("parseRetryAfter and SQS delays", () => {
  const now = new Date("2026-01-01T00:00:00Z");

  it("reads delay-seconds and HTTP-dates, caps at 24 h, ignores garbage", () => {
    expect(parseRetryAfter("30", now)).toBe(30 * s);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now)).toBe(60 * s);
    expect(parseRetryAfter("999999", now)).toBe(24 * h);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("delays a message at most 900 s (longer waits are chained)", () => {
    expect(sqsDelaySeconds(undefined, 0)).toBe(0);
    expect(sqsDelaySeconds(5_500, 0)).toBe(5);
    expect(sqsDelaySeconds(2 * h, 0)).toBe(900);
    expect(sqsDelaySeconds(-5, 0)).toBe(0);
  });
});
