/** Thrown by `withDeadline` when the time is up; callers turn it into RENDER_TIMEOUT. */
export class DeadlineExceeded extends Error {
  constructor() {
    super("deadline exceeded");
    this.name = "DeadlineExceeded";
  }
}

/** Milliseconds left until `deadlineAt` (a `performance.now()` timestamp). */
export function remainingMs(deadlineAt: number): number {
  return deadlineAt - performance.now();
}

/**
 * Settles with `work` or rejects with DeadlineExceeded at `deadlineAt`, whichever is
 * first. On time-out `onTimeout` runs synchronously, so the caller can kill whatever is
 * still doing the work; a late rejection of `work` is swallowed.
 */
export function withDeadline<T>(work: Promise<T>, deadlineAt: number, onTimeout: () => void): Promise<T> {
  work.catch(() => {});
  const ms = remainingMs(deadlineAt);
  if (ms <= 0) {
    onTimeout();
    return Promise.reject(new DeadlineExceeded());
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new DeadlineExceeded());
    }, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
