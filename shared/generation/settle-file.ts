import type { Clock } from "#shared/clock.ts";
import { catalogue, formatMessage } from "#shared/errors/catalogue.ts";
import { correctFilePages, correctFilesPages, dropMarkers, type PageAccount } from "#shared/limits/file-pages.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { deletePdf, type FileRecord, isFinal, settleFileRecord } from "./file-store.ts";
import { finalizeIfSettled, finalizeSingle } from "./finalize-request.ts";
import { markSettled } from "./job-store.ts";
import { storedRequestDeps } from "./request-adapters.ts";
import { deleteParams, paramsObjectKey } from "./params-store.ts";
import type { Outcome } from "./render-file.ts";

/**
 * Settling an async file, exactly once whatever is retried or duplicated:
 * 1. `queued → counting` (conditional): the one delivery that wins it owns the file's
 *    outcome (kept on the record); every other delivery, late or concurrent, stops here;
 * 2. its pages are counted against the reservation, once per file (file-pages.ts marker;
 *    a stopping plan's limit may refuse them: the file then fails, never delivered);
 * 3. `counting → done | failed`; then the request counts it (and may be finalized).
 * A crash after 1 leaves `counting`: replays and the sweeper redo 2 and 3 (idempotent).
 * A rendered one-page file has nothing to count (`countedAsReserved`): step 1 takes it
 * `queued → done` at once, and only 3's request count follows, as for any settled file.
 */

/** A settled file as its request's count needs it (whose page marker to drop once counted). */
export interface SettledFile {
  fileId: string;
  account?: PageAccount;
  /** The file of a single: its request has no other file, so counting it ends the request. */
  single?: true;
}

/** Where a file's pages are counted (none for records written without a month). */
export function accountOf(
  file: Pick<FileRecord, "requestId" | "workspaceId" | "usageMonth" | "pageLimit" | "pagesSpread">,
): PageAccount | undefined {
  if (!file.usageMonth) return undefined;
  return {
    workspaceId: file.workspaceId,
    month: file.usageMonth,
    ...(file.pageLimit !== undefined && { limit: file.pageLimit }),
    ...(file.pagesSpread && { spread: file.requestId }),
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
});

/**
 * Settles a queued file with `outcome` (steps 1–3 above). False when another delivery
 * owns the file: the caller does nothing more.
 */
export async function settleOnce(file: FileRecord, outcome: Outcome, clock: Clock): Promise<boolean> {
  if (!accountOf(file))
    return settleFileRecord(file.requestId, file.fileId, { ...outcome, completedAt: clock.now().toISOString() });
  if (
    !(await settleFileRecord(file.requestId, file.fileId, {
      ...outcome,
      status: "counting",
      pendingStatus: outcome.status,
    }))
  )
    return false;
  await finishCounting(file, outcome, clock);
  return true;
}

/** A file this delivery claimed (`queued → counting`, step 1), with the outcome it is counted with. */
export interface ClaimedFile {
  file: FileRecord;
  outcome: Outcome;
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
 * Step 1 alone: `claimed` when this delivery owns the file (steps 2 and 3 follow in
 * `finishClaimed`), `settled` when the file has no page account or its pages are what was
 * reserved (`countedAsReserved`) and it was settled at once,
 * undefined when another delivery owns it (the caller does nothing more).
 */
export async function claimOnce(
  file: FileRecord,
  outcome: Outcome,
  clock: Clock,
): Promise<"claimed" | "settled" | undefined> {
  if (!accountOf(file) || countedAsReserved(outcome))
    return (await settleFileRecord(file.requestId, file.fileId, { ...outcome, completedAt: clock.now().toISOString() }))
      ? "settled"
      : undefined;
  const claimed = await settleFileRecord(file.requestId, file.fileId, {
    ...outcome,
    status: "counting",
    pendingStatus: outcome.status,
  });
  return claimed ? "claimed" : undefined;
}

/**
 * Steps 2 and 3 for files of one request that this delivery claimed. On a plan that never stops
 * their page corrections are one write (`correctFilesPages`: all or nothing, none corrected
 * before); otherwise, or when one was corrected before, each file on its own as in `finishCounting`.
 * A crash or a failed write leaves them `counting`: replays and the sweeper finish them one by one.
 */
export async function finishClaimed(claimed: ClaimedFile[], clock: Clock): Promise<void> {
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
  await Promise.all(
    claimed.map((c) =>
      together
        ? settleFileRecord(c.file.requestId, c.file.fileId, { ...c.outcome, completedAt }, "counting")
        : finishCounting(c.file, c.outcome, clock),
    ),
  );
}

/** Steps 2 and 3 for a file in `counting` (repeatable). */
export async function finishCounting(file: FileRecord, outcome: Outcome, clock: Clock): Promise<void> {
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

/** Finishes the files a crash left in `counting` (recovery and sweeper); returns the records as they are now final. */
export async function finishPending(files: FileRecord[], clock: Clock): Promise<FileRecord[]> {
  const pending = files.filter((f) => f.status === "counting");
  for (const f of pending) await finishCounting(f, pendingOutcome(f), clock);
  return files.map((f) => (f.status === "counting" ? { ...f, status: f.pendingStatus ?? "failed" } : f));
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
