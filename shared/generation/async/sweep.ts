import type { Clock } from "#shared/clock.ts";
import { catalogue } from "#shared/errors/catalogue.ts";
import { logger } from "#shared/observability/logger.ts";
import { settlePages } from "#shared/limits/page-quota.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { queues } from "#shared/definitions/queues.ts";
import { relayOutbox, OUTBOX_RELAY_SECONDS } from "#shared/webhooks/event-outbox.ts";
import { boundedTask } from "./bounded-task.ts";
import {
  type FileRecord,
  listFileRecords,
  getJob,
  type JobRecord,
  listActiveJobs,
  type Outcome,
  storedRequestDeps,
} from "#shared/generation/store/index.ts";
import {
  finalizeWith,
  countSettled,
  failAndMaybeFinalize,
  finalFilesOf,
  finishPending,
  pageSpreadOf,
} from "#shared/generation/settle/index.ts";

/**
 * Acceptance runs inside the async API function (29 s time-out): a job that has not marked
 * its render messages queued this long after it was created died in acceptance.
 */
export const ACCEPT_DEADLINE_SECONDS = 120;

/**
 * A queued render message is received at most `maxReceiveCount` times, each for up to the
 * visibility time-out, before the DLQ consumer fails its file: a request whose rendering
 * showed no sign of life for 15 min longer than that lost its messages (or the DLQ consumer
 * failed). Signs of life: its creation, and the `renderAliveAt` a worker records when it
 * settles files of it (in the same write) or sends a file back to the queue (fair rendering
 * gives each deferral a new message, whose receive count starts again), at least every
 * RENDER_ALIVE_EVERY_SECONDS (job-store.ts) while it defers.
 */
export const RENDER_DEADLINE_SECONDS = queues.render.maxReceiveCount * queues.render.visibilityTimeoutSeconds + 15 * 60;

/** The request's last sign of rendering life (ISO). */
const lastAlive = (job: JobRecord): string =>
  job.renderAliveAt && job.renderAliveAt > job.createdAt ? job.renderAliveAt : job.createdAt;

export interface SweepReport {
  /** Unfinished requests looked at. */
  checked: number;
  /** Files failed with GENERATION_INTERRUPTED because their acceptance or rendering stalled. */
  failedFiles: number;
  /** Outbox events whose deliveries were queued again. */
  relayed: number;
  /** Steps (the relay, the listing, one request) that threw; the others ran. */
  errors: number;
  /** Steps still running when their time budget ran out; the next run does them again. */
  timedOut: number;
  /** Requests not looked at because the run's budget was spent (the next run takes them). */
  skipped: number;
}

/**
 * Time budgets of one run, inside the sweep function's 300 s (shared/definitions/functions.ts). The relay
 * runs first with its own share: a slow or broken request sweep must never hold back webhooks.
 */
export const SWEEP_BUDGET = { totalMs: 240_000, relayMs: 90_000, perJobMs: 20_000 };

/** What the sweeper does, as ports: the stores in production, in-memory fakes in unit tests. */
export interface SweepPorts {
  relayOutbox(before: string): Promise<number>;
  listActiveJobs(createdBefore: string): Promise<JobRecord[]>;
  sweepJob(job: JobRecord, renderDeadline: string, clock: Clock): Promise<number>;
}

const storedSweepPorts: SweepPorts = {
  relayOutbox: (before) => relayOutbox(before, async (requestId) => (await getJob(requestId))?.status !== "processing"),
  listActiveJobs,
  sweepJob,
};

const interrupted: Outcome = {
  status: "failed",
  errorCode: "GENERATION_INTERRUPTED",
  errorMessage: catalogue.GENERATION_INTERRUPTED.en,
};

/**
 * The sweeper. For every request still processing past the
 * acceptance deadline: settled files are counted again (idempotent: repairs a count or
 * finalization lost to a crash); if its acceptance stalled (render messages never marked
 * queued) or its rendering showed no sign of life for the render deadline, every
 * still-queued file fails with GENERATION_INTERRUPTED (its reserved page returned,
 * `file.failed` sent where routing says so) and the request ends. The outbox relay, which queues the deliveries of
 * events that never got them, runs first. Each step (the relay, the listing, each request) has its own error
 * boundary and time budget (SWEEP_BUDGET), so one that throws or hangs stops only itself. Safe to run at any
 * time and concurrently with the workers.
 */
export async function sweepStalled(
  clock: Clock,
  ports: SweepPorts = storedSweepPorts,
  budget = SWEEP_BUDGET,
): Promise<SweepReport> {
  const startedAt = Date.now();
  const now = clock.now().getTime();
  const iso = (secondsAgo: number) => new Date(now - secondsAgo * 1000).toISOString();
  const report: SweepReport = { checked: 0, failedFiles: 0, relayed: 0, errors: 0, timedOut: 0, skipped: 0 };
  const count = (step: string, end: { ok: false; timedOut: boolean; error?: unknown }) => {
    if (end.timedOut) report.timedOut += 1;
    else report.errors += 1;
    logger.error(`sweep: ${step} ${end.timedOut ? "ran out of time" : "failed"}`, {
      error: end.error instanceof Error ? end.error : String(end.error ?? ""),
    });
  };
  const relay = await boundedTask(() => ports.relayOutbox(iso(OUTBOX_RELAY_SECONDS)), budget.relayMs);
  if (relay.ok) report.relayed = relay.value;
  else count("outbox relay", relay);
  const left = () => budget.totalMs - (Date.now() - startedAt);
  const listed = await boundedTask(
    () => ports.listActiveJobs(iso(ACCEPT_DEADLINE_SECONDS)),
    Math.min(left(), budget.perJobMs),
  );
  if (!listed.ok) {
    count("listing unfinished requests", listed);
    return report;
  }
  const renderDeadline = iso(RENDER_DEADLINE_SECONDS);
  for (const job of listed.value) {
    if (left() <= 0) {
      report.skipped += 1;
      continue;
    }
    report.checked += 1;
    const swept = await boundedTask(
      () => ports.sweepJob(job, renderDeadline, clock),
      Math.min(left(), budget.perJobMs),
    );
    if (swept.ok) report.failedFiles += swept.value;
    else count(`request ${job.requestId}`, swept);
  }
  return report;
}

async function sweepJob(job: JobRecord, renderDeadline: string, clock: Clock): Promise<number> {
  const files = await finishPending(await listFileRecords(job.requestId), clock);
  await countSettled(job.requestId, finalFilesOf(files), clock);
  const stalled = !job.enqueuedAt || lastAlive(job) < renderDeadline;
  if (!stalled) return 0;
  const queued = files.filter((f) => f.status === "queued");
  for (const file of queued) await failAndMaybeFinalize(file, interrupted, clock);
  if (files.length < job.total) await endWithMissingFiles(job, clock);
  return queued.length;
}

/**
 * Acceptance died before every file record was written: those files never existed for
 * anyone but the reservation. The request fails with GENERATION_INTERRUPTED and, if this
 * call ended it, the missing files' reserved pages are returned.
 */
async function endWithMissingFiles(job: JobRecord, clock: Clock): Promise<void> {
  const files: FileRecord[] = await listFileRecords(job.requestId);
  if (files.some((f) => f.status === "queued" || f.status === "counting")) return;
  const error = { code: "GENERATION_INTERRUPTED", message: catalogue.GENERATION_INTERRUPTED.en };
  const failedFiles = files
    .filter((f) => f.status === "failed")
    .map((f) => ({
      fileId: f.fileId,
      fileName: f.fileName,
      code: f.errorCode ?? error.code,
      message: f.errorMessage ?? error.message,
    }));
  const won = await finalizeWith(
    job,
    files,
    { status: "failed", error, ...(failedFiles.length && { failedFiles }) },
    storedRequestDeps(clock),
  );
  if (won && job.usageMonth)
    await settlePages(
      dynamoPageCounter,
      job.workspaceId,
      job.usageMonth,
      -(job.total - files.length),
      pageSpreadOf(job),
    );
}
