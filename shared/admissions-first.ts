/**
 * Requests of this container still being admitted: the short, latency-bound phase before a
 * render may start. Work left for after a response (storing a sync answer's PDFs) yields to
 * them between its steps, so in a process serving several invocations of a function at once
 * (the local stack) a new request's admission does not queue behind the previous request's storing.
 * A Lambda container runs one invocation at a time: nothing waits there. Under a load where
 * admissions overlap without a gap, a waiting step goes anyway after MAX_YIELD_MS, so storing
 * is delayed, never starved (readers wait up to 3 s for a file being stored). One per
 * container, in its admission memory (shared/http/admit.ts): admission marks its requests,
 * the work after an answer waits on them.
 */
export interface AdmissionsInProgress {
  /** Marks one request as being admitted until `settled` settles. */
  whileAdmitting(settled: Promise<unknown>): void;
  /** Resolves at once when no request is being admitted, else when none is or after MAX_YIELD_MS. */
  afterAdmissions(): Promise<void>;
  /** Steps waiting right now (tests). */
  waitingSteps(): number;
}

const MAX_YIELD_MS = 50;

/** No request being admitted yet: made once per container, with its admission memory. */
export function admissionsInProgress(): AdmissionsInProgress {
  let admittingCount = 0;
  let waiting: (() => void)[] = [];
  return {
    whileAdmitting(settled) {
      admittingCount++;
      const leave = () => {
        if (--admittingCount > 0) return;
        const wake = waiting;
        waiting = [];
        for (const resolve of wake) resolve();
      };
      settled.then(leave, leave);
    },
    afterAdmissions() {
      if (admittingCount === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiting = waiting.filter((w) => w !== wake); // gone on its own: not woken again later
          resolve();
        }, MAX_YIELD_MS);
        waiting.push(wake);
      });
    },
    waitingSteps: () => waiting.length,
  };
}
