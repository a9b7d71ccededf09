import type { Clock } from "#shared/clock.ts";
import { listFileRecords } from "./file-store.ts";
import { listActiveJobs } from "./job-store.ts";
import { countSettled, settledFileOf } from "./render-file.ts";
import { sendRenderMessages } from "./render-queue.ts";

/**
 * Finishes what a crash interrupted, for every unfinished request created before `before`:
 * settled files are (re)counted — idempotent, so a count (and its page correction) lost
 * between settling and counting is repaired — a request with no queued file left is
 * finalized, and every still-queued file gets a new render message. SQS keeps messages
 * across worker crashes in AWS; the local stack's fauxqs keeps them in memory only, so
 * `npm start` runs this on every start. Safe at any time: the worker is idempotent per
 * file. Returns how many files were re-queued.
 */
export async function recoverUnfinishedRequests(before: string, clock: Clock): Promise<number> {
  let requeued = 0;
  for (const job of await listActiveJobs(before)) {
    const files = await listFileRecords(job.requestId);
    const queued = files.filter((f) => f.status === "queued");
    // Finalizes the request too when none of its files is queued any more.
    await countSettled(job.requestId, files.filter((f) => f.status !== "queued").map((f) => settledFileOf(f.fileId, f)), clock);
    if (!queued.length) continue;
    await sendRenderMessages(queued.map((f) => ({ workspaceId: f.workspaceId, requestId: f.requestId, fileId: f.fileId })));
    requeued += queued.length;
  }
  return requeued;
}
