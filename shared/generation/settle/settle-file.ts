import type { Clock } from "#shared/clock.ts";
import { catalogue, formatMessage } from "#shared/errors/catalogue.ts";
import { correctFilePages, correctFilesPages, dropMarkers, type PageAccount } from "#shared/limits/page-corrections.ts";
import type { PageSpread } from "#shared/limits/page-shards.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { functions } from "#shared/definitions/functions.ts";
import {
  deletePdf,
  type FileRecord,
  isFinal,
  releaseCount,
  settleFileRecord,
  takeOverCount,
  markSettled,
  storedRequestDeps,
  deleteParams,
  paramsObjectKey,
  type Outcome,
} from "#shared/generation/store/index.ts";
import { finalizeIfSettled, finalizeSingle } from "./finalize-request.ts";

/**
 * Settling an async file, exactly once whatever is retried or duplicated:
 * 1. `queued → counting` (conditional): the one delivery that wins it owns the file's
 *    outcome (kept on the record); every other delivery, late or concurrent, stops here;
 * 2. its pages are counted against the reservation, once per file (page-corrections.ts marker;
 *    a stopping plan's limit may refuse them: the file then fails, never delivered);
 * 3. `counting → done | failed`; then the request counts it (and may be finalized).
 * A crash after 1 leaves `counting`: replays and the sweeper redo 2 and 3, once they have taken
 * the count over (`finishOthersClaim`).
 * A rendered one-page file has nothing to count (`countedAsReserved`): step 1 takes it
 * `queued → done` at once, and only 3's request count follows, as for any settled file.
 *
 * Why a count is taken over and not simply redone: step 2's marker is dropped once the file is
 * counted on its request (the usage item stays small), so a second finisher that read `counting`
 * before the first one finished would find no marker and count the pages again (one page billed
 * twice in 26,448 at 10× load: the sweeper had listed a request's files while its worker counted
 * them). A claim belongs to its claimer for COUNT_TAKEOVER_SECONDS; after that (or once the claimer
 * released it) a finisher takes it over with one conditional write on the claim it read, so exactly
 * one of any finishers counts, and none while the claimer may still be at work.
 */

/**
 * How long a claim (`queued → counting`) is its claimer's alone: longer than any function may run
 * (shared/definitions/functions.ts), so whoever claimed the file has written its last write by then.
 */
export const COUNT_TAKEOVER_SECONDS = Math.max(...Object.values(functions).map((f) => f.timeoutSeconds)) + 60;

/** The claims a finisher may take over now: those made before this time (ISO). */
export const takeoverBefore = (clock: Clock): string =>
  new Date(clock.now().getTime() - COUNT_TAKEOVER_SECONDS * 1000).toISOString();

/** A settled file as its request's count needs it (whose page marker to drop once counted). */
export interface SettledFile {
  fileId: string;
  account?: PageAccount;
  /** The file of a single: its request has no other file, so counting it ends the request. */
  single?: true;
}

/** The item a request's page writes go to on a plan that never stops, as its records say (page-shards.ts). */
export const pageSpreadOf = (
  r: Pick<FileRecord, "requestId" | "pagesSpread" | "pagesByRequest">,
): PageSpread | undefined =>
  r.pagesByRequest
    ? { requestId: r.requestId, layout: "request" }
    : r.pagesSpread
      ? { requestId: r.requestId, layout: "shard" }
      : undefined;

/** Where a file's pages are counted (none for records written without a month). */
export function accountOf(
  file: Pick<FileRecord, "requestId" | "workspaceId" | "usageMonth" | "pageLimit" | "pagesSpread" | "pagesByRequest">,
): PageAccount | undefined {
  if (!file.usageMonth) return undefined;
  const spread = pageSpreadOf(file);
  return {
    workspaceId: file.workspaceId,
    month: file.usageMonth,
    ...(file.pageLimit !== undefined && { limit: file.pageLimit }),
    ...(spread && { spread }),
  };
}

export const settledFileOf = (
  file: Pick<
    FileRecord,
    | "fileId"
    | "requestId"
    | "workspaceId"
    | "usageMonth"
    | "pageLimit"
    | "pagesSpread"
    | "pagesByRequest"
    | "status"
    | "pageCount"
    | "mode"
  >,
): SettledFile => {
  // A file counted as reserved never had a page marker (`countedAsReserved`): nothing to drop.
  const reserved = file.status === "done" && countedAsReserved({ status: "done", pageCount: file.pageCount });
  const account = reserved ? undefined : accountOf(file);
  return { fileId: file.fileId, ...(account && { account }), ...(file.mode === "single" && { single: true as const }) };
};

/** The outcome a file in `counting` waits with. */
export const pendingOutcome = (f: FileRecord): Outcome => ({
  status: f.pendingStatus ?? "failed",
  ...(f.pageCount !== undefined && { pageCount: f.pageCount }),
  ...(f.bytes !== undefined && { bytes: f.bytes }),
  ...(f.s3Key && { s3Key: f.s3Key }),
  ...(f.errorCode && { errorCode: f.errorCode }),
  ...(f.errorMessage && { errorMessage: f.errorMessage }),
  ...(f.signature && { signature: f.signature }),
});

/**
 * Settles a queued file with `outcome` (steps 1–3 above). False when another delivery
 * owns the file: the caller does nothing more.
 */
export async function settleOnce(file: FileRecord, outcome: Outcome, clock: Clock): Promise<boolean> {
  if (!accountOf(file))
    return settleFileRecord(file.requestId, file.fileId, { ...outcome, completedAt: clock.now().toISOString() });
  const claim = await claimCount(file, outcome, clock);
  if (!claim) return false;
  await finishClaimed([claim], clock);
  return true;
}

/** A file this delivery claimed (`queued → counting`, step 1), with the outcome it is counted with. */
export interface ClaimedFile {
  file: FileRecord;
  outcome: Outcome;
  /** The claim's time (`countingAt`): what a release of the claim names. */
  countingAt: string;
}

/** Step 1 for a file that has pages to count: the claim, or undefined when another delivery owns the file. */
async function claimCount(file: FileRecord, outcome: Outcome, clock: Clock): Promise<ClaimedFile | undefined> {
  const countingAt = clock.now().toISOString();
  const claimed = await settleFileRecord(file.requestId, file.fileId, {
    ...outcome,
    status: "counting",
    pendingStatus: outcome.status,
    countingAt,
  });
  return claimed ? { file, outcome, countingAt } : undefined;
}

/**
 * Whether the outcome's pages are exactly what acceptance reserved for the file (one page): a
 * rendered one-page document, the most common. Its count needs no correction — on any plan, as
 * the reservation already passed a stopping plan's limit — so steps 2 and 3 have nothing to do:
 * its claim is final (`queued → done` in one conditional write) and it has no marker to drop.
 */
export const countedAsReserved = (outcome: Pick<Outcome, "status" | "pageCount">): boolean =>
  outcome.status === "done" && outcome.pageCount === 1;

/**
 * Step 1 alone: the claim when this delivery owns the file (steps 2 and 3 follow in
 * `finishClaimed`), `settled` when the file has no page account or its pages are what was
 * reserved (`countedAsReserved`) and it was settled at once,
 * undefined when another delivery owns it (the caller does nothing more).
 */
export async function claimOnce(
  file: FileRecord,
  outcome: Outcome,
  clock: Clock,
): Promise<ClaimedFile | "settled" | undefined> {
  if (!accountOf(file) || countedAsReserved(outcome))
    return (await settleFileRecord(file.requestId, file.fileId, { ...outcome, completedAt: clock.now().toISOString() }))
      ? "settled"
      : undefined;
  return claimCount(file, outcome, clock);
}

/**
 * Steps 2 and 3 for files of one request that this delivery claimed. On a plan that never stops
 * their page corrections are one write (`correctFilesPages`: all or nothing, none corrected
 * before); otherwise, or when one was corrected before, each file on its own as in `finishCounting`.
 * A crash leaves them `counting` (replays and the sweeper take them over after COUNT_TAKEOVER_SECONDS);
 * a failed write releases the claims once none of this delivery's writes is in flight any more, so
 * the retry of their messages takes them over at once.
 */
export async function finishClaimed(claimed: ClaimedFile[], clock: Clock): Promise<void> {
  try {
    await countClaimed(claimed, clock);
  } catch (err) {
    await Promise.all(claimed.map((c) => releaseCount(c.file, c.countingAt).catch(() => false)));
    throw err;
  }
}

async function countClaimed(claimed: ClaimedFile[], clock: Clock): Promise<void> {
  const account = claimed.length > 1 ? accountOf(claimed[0]!.file) : undefined;
  const together =
    account !== undefined &&
    account.limit === undefined &&
    (await correctFilesPages(
      account,
      claimed.map((c) => ({
        fileId: c.file.fileId,
        pages: c.outcome.status === "done" ? c.outcome.pageCount : undefined,
      })),
    ));
  const completedAt = clock.now().toISOString();
  // Every write ends before a failure is reported: a claim is released only once none is in flight.
  const settled = await Promise.allSettled(
    claimed.map((c) =>
      together
        ? settleFileRecord(c.file.requestId, c.file.fileId, { ...c.outcome, completedAt }, "counting")
        : finishCounting(c.file, c.outcome, clock),
    ),
  );
  const failed = settled.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** Steps 2 and 3 for a file in `counting` that this caller holds the claim of. */
async function finishCounting(file: FileRecord, outcome: Outcome, clock: Clock): Promise<void> {
  const final = await accountFor(file, outcome);
  await settleFileRecord(file.requestId, file.fileId, { ...final, completedAt: clock.now().toISOString() }, "counting");
}

/**
 * Counts the outcome's pages against the file's reservation and returns the outcome to
 * settle: a rendered file refused by a stopping plan's limit fails with
 * PLAN_PAGE_LIMIT_EXCEEDED and its PDF is removed (never delivered).
 */
async function accountFor(file: FileRecord, outcome: Outcome): Promise<Outcome> {
  const account = accountOf(file);
  if (!account || countedAsReserved(outcome)) return outcome;
  const c = await correctFilePages(account, file.fileId, outcome.status === "done" ? outcome.pageCount : undefined);
  if (c.kind !== "refused" || outcome.status !== "done") return outcome;
  if (outcome.s3Key) await deletePdf(outcome.s3Key).catch(() => undefined); // a leftover would only wait for its retention
  const used = await dynamoPageCounter.used(account.workspaceId, account.month);
  const vars = { used, limit: account.limit ?? used };
  return {
    status: "failed",
    errorCode: "PLAN_PAGE_LIMIT_EXCEEDED",
    errorMessage: formatMessage(catalogue.PLAN_PAGE_LIMIT_EXCEEDED.en, vars),
  };
}

/**
 * Finishes a file found in `counting` that another delivery claimed (a replay, the sweeper, the local
 * stack's recovery), if its claim was made before `claimedBefore` (default: COUNT_TAKEOVER_SECONDS ago;
 * the local recovery passes the start of its process, whose predecessor died with its claims) and
 * this caller wins its takeover. True when this call settled the file; false when it is left to
 * whoever holds its claim (its claimer still at work, or a finisher that took it over first).
 */
export async function finishOthersClaim(
  file: FileRecord,
  clock: Clock,
  claimedBefore = takeoverBefore(clock),
): Promise<boolean> {
  if (file.status !== "counting") return false;
  if (file.countingAt !== undefined && file.countingAt >= claimedBefore) return false;
  const at = clock.now().toISOString();
  if (!(await takeOverCount(file, at))) return false;
  await finishClaimed([{ file, outcome: pendingOutcome(file), countingAt: at }], clock);
  return true;
}

/**
 * Finishes the files a crash left in `counting` (recovery and sweeper, `finishOthersClaim`); returns the
 * records, those it settled as they are now final (the others it leaves `counting`, not counted here).
 */
export async function finishPending(files: FileRecord[], clock: Clock, claimedBefore?: string): Promise<FileRecord[]> {
  const finished = new Set<string>();
  for (const f of files) if (await finishOthersClaim(f, clock, claimedBefore)) finished.add(f.fileId);
  return files.map((f) => (finished.has(f.fileId) ? { ...f, status: f.pendingStatus ?? "failed" } : f));
}

/** Fails a queued file that will not be rendered (DLQ, sweeper) and finalizes the request when it was the last. */
export async function failAndMaybeFinalize(file: FileRecord, failure: Outcome, clock: Clock): Promise<void> {
  if (await settleOnce(file, failure, clock)) await countSettled(file.requestId, [settledFileOf(file)], clock);
  await dropParams(file);
}

/** The params object of a settled file is not needed any more (not kept for the bucket's 30 days). */
export async function dropParams(
  file: Pick<FileRecord, "workspaceId" | "requestId" | "fileId" | "paramsJson">,
): Promise<void> {
  if (file.paramsJson !== undefined) return;
  await deleteParams(paramsObjectKey(file.workspaceId, file.requestId, file.fileId)).catch(() => undefined);
}

/**
 * Counts final files of one request (idempotently) and finalizes it once every file is
 * counted. Their pages were counted before they became final; counting here drops their
 * page markers, which nothing needs any more (no delivery gets past `queued → counting`).
 * `rendered`: a worker just settled them, a sign of life of the request for the sweeper.
 */
export async function countSettled(
  requestId: string,
  files: SettledFile[],
  clock: Clock,
  opts: { rendered?: boolean } = {},
): Promise<void> {
  const aliveAt = opts.rendered ? clock.now().toISOString() : undefined;
  const account = files.find((f) => f.account)?.account;
  const drop = () =>
    account
      ? dropMarkers(
          account,
          files.filter((f) => f.account).map((f) => f.fileId),
        )
      : undefined;
  // A single's file is its whole request: the count goes into the finalization's write.
  const [single] = files;
  if (files.length === 1 && single?.single) {
    if (await finalizeSingle(requestId, single.fileId, storedRequestDeps(clock), aliveAt)) {
      await drop();
      return;
    }
  }
  const counted = await markSettled(
    requestId,
    files.map((f) => f.fileId),
    aliveAt,
  );
  if (!counted) return;
  const { job } = counted;
  await Promise.all([
    drop(),
    job.status === "processing" && job.settled >= job.total
      ? finalizeIfSettled(requestId, storedRequestDeps(clock))
      : undefined,
  ]);
}

/** The settled files of a request's records (what `countSettled` takes). */
export const finalFilesOf = (files: FileRecord[]): SettledFile[] => files.filter(isFinal).map(settledFileOf);
