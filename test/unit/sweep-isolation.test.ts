import { describe, expect, it } from "vitest";
import type { JobRecord } from "#shared/generation/store/index.ts";
import { type SweepPorts, sweepStalled } from "#shared/generation/async/sweep.ts";
import { fixedClock, jobRecord } from "../helpers/memory-requests.ts";

/**
 * The sweeper runs the outbox relay first and gives every step its own error boundary and time budget
 * (shared/generation/README.md#reliability): a request whose sweep throws or hangs, or a listing that fails,
 * never keeps webhooks from being relayed nor the other requests from being swept.
 */

const clock = fixedClock("2026-01-01T01:00:00.000Z");
const BUDGET = { totalMs: 2_000, relayMs: 200, perJobMs: 100 };
const never = () => new Promise<never>(() => {});

function fakes(overrides: Partial<SweepPorts> = {}) {
  const calls: string[] = [];
  const jobs = ["throws", "hangs", "fine"].map((requestId) => jobRecord({ requestId }) as JobRecord);
  const ports: SweepPorts = {
    relayOutbox: async () => {
      calls.push("relay");
      return 3;
    },
    listActiveJobs: async () => {
      calls.push("list");
      return jobs;
    },
    sweepJob: async (job) => {
      calls.push(job.requestId);
      if (job.requestId === "throws") throw new Error("a broken file record");
      if (job.requestId === "hangs") return never();
      return 2;
    },
    ...overrides,
  };
  return { ports, calls };
}

describe("sweeper isolation", () => {
  it("relays first, and a request that throws or hangs stops only itself", async () => {
    const { ports, calls } = fakes();
    const report = await sweepStalled(clock, ports, BUDGET);
    expect(calls).toEqual(["relay", "list", "throws", "hangs", "fine"]);
    expect(report).toEqual({ checked: 3, failedFiles: 2, relayed: 3, errors: 1, timedOut: 1, skipped: 0 });
  });

  it("relays even when listing the unfinished requests throws or hangs", async () => {
    for (const listActiveJobs of [async () => Promise.reject(new Error("throttled")), never]) {
      const { ports } = fakes({ listActiveJobs });
      const report = await sweepStalled(clock, ports, BUDGET);
      expect(report.relayed).toBe(3);
      expect(report.errors + report.timedOut).toBe(1);
    }
  });

  it("sweeps the requests when the relay throws or hangs, and stops at the run's budget", async () => {
    const { ports } = fakes({ relayOutbox: never });
    expect(await sweepStalled(clock, ports, BUDGET)).toMatchObject({ relayed: 0, timedOut: 2, failedFiles: 2 });
    const many = fakes({
      listActiveJobs: async () => Array.from({ length: 50 }, (_, i) => jobRecord({ requestId: `r${i}` }) as JobRecord),
      sweepJob: () => never(),
    });
    const started = Date.now();
    const report = await sweepStalled(clock, many.ports, { totalMs: 350, relayMs: 50, perJobMs: 100 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(report.skipped).toBeGreaterThan(40);
    expect(report.checked + report.skipped).toBe(50);
  });
});
