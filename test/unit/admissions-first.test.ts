import { describe, expect, it, vi } from "vitest";
import { admissionsInProgress } from "#shared/admissions-first.ts";

const { afterAdmissions, waitingSteps, whileAdmitting } = admissionsInProgress();

const settledYet = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe("work after a response yields to requests being admitted", () => {
  it("goes at once when no request is being admitted", async () => {
    expect(await settledYet(afterAdmissions())).toBe(true);
  });

  it("waits until every admission in progress has settled, accepted or refused", async () => {
    // The 50 ms cap on waiting (the next test) must not end the wait on a loaded machine.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let accept!: () => void;
    let refuse!: (e: Error) => void;
    const accepted = new Promise<void>((r) => (accept = r));
    const refused = new Promise<void>((_, r) => (refuse = r));
    refused.catch(() => undefined);
    whileAdmitting(accepted);
    whileAdmitting(refused);
    const waiting = afterAdmissions();
    expect(await settledYet(waiting)).toBe(false);
    accept();
    expect(await settledYet(waiting)).toBe(false);
    refuse(new Error("401"));
    expect(await settledYet(waiting)).toBe(true);
    expect(await settledYet(afterAdmissions())).toBe(true);
    vi.useRealTimers();
  });

  it("is delayed, never starved, when admissions keep overlapping", async () => {
    const never = new Promise<void>(() => undefined);
    whileAdmitting(never);
    const started = performance.now();
    await afterAdmissions();
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(waited).toBeLessThan(1000);
    expect(waitingSteps()).toBe(0); // a step that went on its own is not kept to be woken later
  });
});
