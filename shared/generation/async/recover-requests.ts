import type { Clock } from "#shared/clock.ts";
import { listFileRecords, listActiveJobs } from "#shared/generation/store/index.ts";
import { countSettled, finalFilesOf, finishPending } from "#shared/generation/settle/index.ts";
import { sendRenderMessages } from "#shared/generation/scheduling/index.ts";

/**
 * Finishes what a crash interrupted, for every unfinished request created before `before`:
 * settled files are (re)counted — idempotent, so a count (and its page correction) lost
 * between settling and counting is repaired — a request with no queued file left is
 * finalized, and every still-queued file gets a new render message. SQS keeps messages
 * across worker crashes in AWS; the local stack's fauxqs keeps them in memory only, so
 * `npm start` runs this on every start. Safe at any time: the worker is idempotent per
 * file. Requests whose acceptance never completed are left to the sweeper (sweep.ts).
 * `claimedBefore`: the counts it may take over (settle-file.ts `finishOthersClaim`); at a start of the
 * local stack, every claim made before it, as the process that made them is gone.
 * Returns how many files were re-queued.
 */
export async function recoverUnfinishedRequests(
  before: string,
  clock: Clock,
  opts: { claimedBefore?: string } = {},
): Promise<number> {
  let requeued = 0;
  for (const job of await listActiveJobs(before)) {
    // A job whose acceptance died before its messages were queued was never answered 202:
    // the sweeper fails it after the acceptance deadline instead of rendering it now.
    if (!job.enqueuedAt) continue;
    const files = await finishPending(await listFileRecords(job.requestId), clock, opts.claimedBefore);
    const queued = files.filter((f) => f.status === "queued");
    // Finalizes the request too when none of its files is queued any more.
    await countSettled(job.requestId, finalFilesOf(files), clock);
    if (!queued.length) continue;
    await sendRenderMessages(
      queued.map((f) => ({ workspaceId: f.workspaceId, requestId: f.requestId, fileId: f.fileId })),
    );
    requeued += queued.length;
  }
  return requeued;
}
