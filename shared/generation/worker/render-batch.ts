import type { Clock } from "#shared/clock.ts";
import { logger } from "#shared/observability/logger.ts";
import {
  DEFERRED,
  type FairRendering,
  type RenderSlots,
  renderSlots,
  deferDelaySeconds,
  parseRenderMessage,
  type RenderMessage,
  sendDelayedRenderMessages,
} from "#shared/generation/scheduling/index.ts";
import {
  type FileRecord,
  getFileRecords,
  markRenderAlive,
  RENDER_ALIVE_EVERY_SECONDS,
} from "#shared/generation/store/index.ts";
import { produceFile, type WorkerDeps } from "./render-file.ts";
import {
  type ClaimedFile,
  claimOnce,
  countSettled,
  dropParams,
  finishClaimed,
  finishOthersClaim,
  type SettledFile,
  settledFileOf,
} from "#shared/generation/settle/index.ts";

/** The worker's dependencies; without `fair` every file renders at once (no per-workspace cap). */
export interface BatchDeps extends WorkerDeps {
  fair?: FairRendering;
}

/** A queued message as the worker gets it (an SQS record has these and more). */
export interface QueuedMessage {
  messageId: string;
  body: string;
}

/** Messages to deliver again, with why. */
export interface BatchFailure {
  messageIds: string[];
  error: unknown;
}

/** One file of the batch and every message that named it (SQS may deliver a message twice). */
interface FileTask {
  msg: RenderMessage;
  messageIds: string[];
}

/** A file this batch settled, or found settled by an earlier attempt: its request counts it. */
interface Counted {
  task: FileTask;
  file: SettledFile;
}

/** A file this batch rendered and claimed: its pages are counted with the request's others of the batch. */
interface Claimed {
  task: FileTask;
  claimed: ClaimedFile;
}

const recordKey = (r: Pick<RenderMessage, "requestId" | "fileId">) => `${r.requestId}/${r.fileId}`;

/**
 * Renders one batch of render messages. The file records are read in one call; each file
 * is rendered and settled on its own (the conditional settle makes duplicates no-ops) and
 * fails alone; the settled files are then counted once per request, which finalizes the
 * request whose last file this was. Returns the messages to retry: a file that failed
 * transiently, and every message of a request whose count failed — their retry finds
 * the files settled and only counts them again (idempotent). A file whose render did not
 * start (its workspace at its share, no browser in time) is sent again at once with a
 * short delay and its message reported done, so it never waits for the visibility
 * time-out, and its receive count (the DLQ's measure of failed attempts) starts afresh.
 */
export async function renderQueuedBatch(messages: QueuedMessage[], deps: BatchDeps): Promise<BatchFailure[]> {
  const failures: BatchFailure[] = [];
  const tasks = fileTasks(messages, failures);
  const records = new Map((await getFileRecords(tasks.map((t) => t.msg))).map((r) => [recordKey(r), r]));
  const slots = deps.fair ? slotsByWorkspace(tasks, records, deps.fair, deps.clock) : undefined;
  const results = await Promise.allSettled(
    tasks.map((t) => renderTask(records.get(recordKey(t.msg)), t.msg, deps, slots?.get(t.msg.workspaceId))),
  );
  await Promise.all([...(slots?.values() ?? [])].map((s) => s.close()));
  const counted: Counted[] = [];
  const claimed: Claimed[] = [];
  const deferred: FileTask[] = [];
  results.forEach((result, i) => {
    const task = tasks[i]!;
    if (result.status === "rejected") failures.push({ messageIds: task.messageIds, error: result.reason });
    else if (result.value === DEFERRED) deferred.push(task);
    else if (result.value && "claimed" in result.value) claimed.push({ task, claimed: result.value.claimed });
    else if (result.value) counted.push({ task, file: result.value });
  });
  if (deferred.length)
    logger.info("render deferred", {
      workspaceIds: [...new Set(deferred.map((t) => t.msg.workspaceId))],
      files: deferred.length,
    });
  failures.push(...(await finishByRequest(claimed, counted, deps)));
  failures.push(...(await countByRequest(counted, deps)));
  return failures;
}

/**
 * Counts the pages of the files claimed in this batch, once per request (settle-file.ts
 * `finishClaimed`), and adds them to `counted`. A failure sends the request's messages back:
 * their retry finds the files `counting` and finishes them one by one.
 */
async function finishByRequest(claimed: Claimed[], counted: Counted[], deps: WorkerDeps): Promise<BatchFailure[]> {
  const groups = [...groupBy(claimed, (c) => c.task.msg.requestId).values()];
  const results = await Promise.allSettled(
    groups.map(async (g) => {
      await finishClaimed(
        g.map((c) => c.claimed),
        deps.clock,
      );
      await Promise.all(g.map((c) => dropParams(c.claimed.file)));
    }),
  );
  return results.flatMap((result, i) => {
    const g = groups[i]!;
    if (result.status === "fulfilled") {
      counted.push(...g.map((c) => ({ task: c.task, file: settledFileOf(c.claimed.file) })));
      return [];
    }
    return [{ messageIds: g.flatMap((c) => c.task.messageIds), error: result.reason }];
  });
}

const groupBy = <T>(items: T[], key: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

/**
 * Sends a file whose render did not start back to the queue, later each time, as soon as
 * that is known (not when its batch ends). A failed send throws: the original message then
 * comes back after the visibility time-out. At most every RENDER_ALIVE_EVERY_SECONDS per
 * message, the request's rendering is first recorded alive: a backlog that keeps moving is
 * not failed by the sweeper's render deadline, however long it lasts.
 */
async function sendBack(msg: RenderMessage, fair: FairRendering, clock: Clock): Promise<typeof DEFERRED> {
  const deferrals = (msg.deferrals ?? 0) + 1;
  const now = clock.now();
  let aliveAt = msg.aliveAt;
  if (!aliveAt || now.getTime() - Date.parse(aliveAt) >= RENDER_ALIVE_EVERY_SECONDS * 1000) {
    // Advisory: a failed write keeps the old time in the message, so the next deferral tries again.
    const at = now.toISOString();
    aliveAt = await markRenderAlive(msg.requestId, at).then(
      () => at,
      (error: unknown) => {
        logger.warn("render heartbeat not recorded", { requestId: msg.requestId, error: String(error) });
        return msg.aliveAt;
      },
    );
  }
  await sendDelayedRenderMessages([
    {
      message: { ...msg, deferrals, aliveAt },
      delaySeconds: deferDelaySeconds(deferrals - 1, fair.config.maxDeferSeconds),
    },
  ]);
  return DEFERRED;
}

/** One task per file named in the batch; a malformed message fails alone. */
function fileTasks(messages: QueuedMessage[], failures: BatchFailure[]): FileTask[] {
  const tasks = new Map<string, FileTask>();
  for (const m of messages) {
    let msg: RenderMessage;
    try {
      msg = parseRenderMessage(m.body);
    } catch (error) {
      failures.push({ messageIds: [m.messageId], error });
      continue;
    }
    const key = `${msg.workspaceId}/${recordKey(msg)}`;
    const task = tasks.get(key);
    if (task) task.messageIds.push(m.messageId);
    else tasks.set(key, { msg, messageIds: [m.messageId] });
  }
  return [...tasks.values()];
}

/**
 * Renders and claims one file; returns what its request should count (a file settled already, or
 * settled at once without a page account), the claimed file whose pages are counted with the
 * batch's others of its request, or nothing.
 */
async function renderTask(
  file: FileRecord | undefined,
  msg: RenderMessage,
  deps: BatchDeps,
  slots: RenderSlots | undefined,
): Promise<SettledFile | { claimed: ClaimedFile } | undefined | typeof DEFERRED> {
  if (!file || file.workspaceId !== msg.workspaceId) return undefined; // nothing to do for an unknown file
  // A replay: the first attempt may have died while counting (its claim is taken over once it is
  // old enough, else left to its claimer and the sweeper), or before counting or finalizing.
  if (file.status === "counting")
    return (await finishOthersClaim(file, deps.clock))
      ? settledFileOf({ ...file, status: file.pendingStatus ?? "failed" })
      : undefined;
  if (file.status !== "queued") return settledFileOf(file);
  // Not settled: another delivery of the file owns it and counts it.
  const render = (onBrowser?: () => void) => produceFile(file, deps, onBrowser);
  const outcome = slots ? await slots.run(render) : await render();
  if (outcome === DEFERRED) return sendBack(msg, deps.fair!, deps.clock);
  const claim = await claimOnce(file, outcome, deps.clock);
  if (!claim) return undefined;
  if (claim !== "settled") return { claimed: claim };
  await dropParams(file);
  return settledFileOf({ ...file, ...outcome });
}

/** Render slots per workspace for the batch's files still to render (fair-render.ts `renderSlots`: one lease write each way). */
function slotsByWorkspace(
  tasks: FileTask[],
  records: Map<string, FileRecord>,
  fair: FairRendering,
  clock: Clock,
): Map<string, RenderSlots> {
  const files = new Map<string, number>();
  for (const { msg } of tasks) {
    const file = records.get(recordKey(msg));
    if (file?.status === "queued" && file.workspaceId === msg.workspaceId)
      files.set(msg.workspaceId, (files.get(msg.workspaceId) ?? 0) + 1);
  }
  return new Map([...files].map(([ws, n]) => [ws, renderSlots(ws, fair, clock, n)]));
}

/** One count (and maybe the finalization) per request; a failure sends all its messages back. */
async function countByRequest(counted: Counted[], deps: WorkerDeps): Promise<BatchFailure[]> {
  const groups = [...groupBy(counted, (c) => c.task.msg.requestId)];
  const results = await Promise.allSettled(
    groups.map(([requestId, g]) =>
      countSettled(
        requestId,
        g.map((c) => c.file),
        deps.clock,
        { rendered: true },
      ),
    ),
  );
  return results.flatMap((result, i) =>
    result.status === "rejected"
      ? [{ messageIds: groups[i]![1].flatMap((c) => c.task.messageIds), error: result.reason }]
      : [],
  );
}
