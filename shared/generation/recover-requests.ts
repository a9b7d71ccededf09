import { listFileRecords } from "./file-store.ts";
import { listActiveJobs } from "./job-store.ts";
import { sendRenderMessages } from "./render-queue.ts";

/**
 * Re-sends a render message for every still-queued file of every unfinished request.
 * SQS keeps messages across worker crashes in AWS; the local stack's fauxqs keeps them
 * in memory only, so after a restart this puts them back. Safe to run any time: the
 * worker is idempotent per file. Returns how many files were re-queued.
 */
export async function requeueUnfinishedFiles(before: string): Promise<number> {
  let count = 0;
  for (const job of await listActiveJobs(before)) {
    const queued = (await listFileRecords(job.requestId)).filter((f) => f.status === "queued");
    await sendRenderMessages(queued.map((f) => ({ workspaceId: f.workspaceId, requestId: f.requestId, fileId: f.fileId })));
    count += queued.length;
  }
  return count;
}
