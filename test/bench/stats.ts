/** Percentile of sorted-on-demand samples (nearest rank). */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Runs `task` `total` times with `concurrency` workers; returns per-task ms and files/s. */
export async function runConcurrent(total: number, concurrency: number, task: () => Promise<void>) {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) {
        const t = performance.now();
        await task();
        times.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { times, p50: percentile(times, 50), p95: percentile(times, 95), perSecond: total / seconds, seconds };
}

export const fmt = (n: number, digits = 0) => n.toFixed(digits);
