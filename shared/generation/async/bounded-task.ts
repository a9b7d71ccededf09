/** How one bounded task ended: its value, its error, or still running when its time ran out. */
export type TaskEnd<T> = { ok: true; value: T } | { ok: false; timedOut: boolean; error?: unknown };

/**
 * Runs `work` with its own error boundary and time budget: a throw or a hang ends this task only, so the
 * caller goes on with the next. A task past its budget is left behind (a promise cannot be cancelled);
 * every step of the sweeper is safe to run again, so the next run redoes what it did not finish.
 */
export async function boundedTask<T>(work: () => Promise<T>, budgetMs: number): Promise<TaskEnd<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<TaskEnd<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, timedOut: true }), Math.max(0, budgetMs));
  });
  const run = (async (): Promise<TaskEnd<T>> => {
    try {
      return { ok: true, value: await work() };
    } catch (error) {
      return { ok: false, timedOut: false, error };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
