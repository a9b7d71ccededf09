import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTableInputs } from "#infra/local/create-resources.ts";
import { armFaults } from "#shared/aws/fault-injection.ts";
import { type Clock, systemClock } from "#shared/clock.ts";
import { type FileRecord, listFileRecords, RELEASED_CLAIM } from "#shared/generation/store/file-store.ts";
import {
  type ClaimedFile,
  COUNT_TAKEOVER_SECONDS,
  claimOnce,
  countSettled,
  finishClaimed,
  finishPending,
  settledFileOf,
} from "#shared/generation/settle/index.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { createWorkspace } from "#shared/workspaces/workspace-store.ts";
import { writeQueuedRequest } from "../helpers/async-queued.ts";
import { startInProcessDynalite } from "../helpers/in-process-dynalite.ts";

/**
 * settle-file.ts on dynalite: a file's pages are counted once however many finishers find it in
 * `counting`. The regression: the sweeper listed a request's files while its worker counted
 * them; the worker counted, settled and dropped the page markers, and the sweeper's count of its
 * stale `counting` read found no marker and billed the file's extra pages a second time.
 */
let dynamo: Awaited<ReturnType<typeof startInProcessDynalite>>;

beforeAll(async () => {
  process.env.PLATEN_TEST_HOOKS = "1"; // the fault rules of the failed-count case (awsClients installs them)
  dynamo = await startInProcessDynalite("platen-takeover-");
  for (const input of createTableInputs()) await dynamo.createTable(input);
});

afterAll(() => dynamo.stop());
afterEach(() => armFaults([]));

const design = { designId: "D000000000000001", version: 1, label: "Takeover" };
const at = (offsetSeconds: number): Clock => ({ now: () => new Date(Date.now() + offsetSeconds * 1000) });
const rendered = (pageCount: number) => ({ status: "done" as const, pageCount, bytes: 1000, s3Key: "unused.pdf" });

/** A request of files with these page counts, rendered and claimed by one worker (not yet counted). */
async function claimedRequest(plan: "standard" | "personal", pages: number[], clock: Clock = systemClock) {
  const { workspace } = await createWorkspace({ name: `takeover ${plan}`, plan }, systemClock);
  const request = await writeQueuedRequest(
    workspace.id,
    design,
    pages.map((_, i) => ({ fileName: `f${i}`, params: {} })),
  );
  const queued = await listFileRecords(request.requestId);
  const claims: ClaimedFile[] = [];
  for (const [i, file] of queued.entries()) {
    const claim = await claimOnce(file, rendered(pages[i]!), clock);
    if (!claim || claim === "settled") throw new Error("expected a claim");
    claims.push(claim);
  }
  const used = () => dynamoPageCounter.used(workspace.id, new Date().toISOString().slice(0, 7));
  return { requestId: request.requestId, claims, used };
}

/** The claimer's whole count: pages, settle, the request's count (which drops the page markers). */
async function countAsClaimer(requestId: string, claims: ClaimedFile[]) {
  await finishClaimed(claims, systemClock);
  await countSettled(
    requestId,
    claims.map((c) => settledFileOf({ ...c.file, status: "done", pageCount: c.outcome.pageCount })),
    systemClock,
  );
}

describe("a file's pages are counted once, whoever finds it counting", () => {
  for (const plan of ["standard", "personal"] as const) {
    it(`${plan}: a finisher that read the files before their claimer counted them counts nothing`, async () => {
      const { requestId, claims, used } = await claimedRequest(plan, [2, 3]);
      const stale = await listFileRecords(requestId); // the sweeper's listing, while the worker counts
      expect(stale.map((f) => f.status)).toEqual(["counting", "counting"]);
      await countAsClaimer(requestId, claims);
      expect(await used()).toBe(5);

      // The sweeper's finish of what it read, as it runs every few minutes: nothing is its to count.
      expect((await finishPending(stale, systemClock)).map((f) => f.status)).toEqual(["counting", "counting"]);
      // Nor once the claims are old (the sweeper a takeover age later) or for the local recovery.
      await finishPending(stale, at(COUNT_TAKEOVER_SECONDS + 1));
      await finishPending(stale, systemClock, new Date(Date.now() + 1000).toISOString());
      expect(await used()).toBe(5);
      expect((await listFileRecords(requestId)).map((f) => f.status)).toEqual(["done", "done"]);
    });
  }

  it("a claim younger than the takeover age is left to its claimer", async () => {
    const { requestId, used } = await claimedRequest("standard", [2]);
    const [file] = await listFileRecords(requestId);
    expect(await finishPending([file!], at(COUNT_TAKEOVER_SECONDS - 30))).toEqual([file]);
    expect(await used()).toBe(1); // the reservation alone: the claimer has not counted yet
  });

  it("an old claim (its claimer gone) is taken over by exactly one of two finishers, and counted once", async () => {
    const { requestId, used } = await claimedRequest("standard", [4], at(-(COUNT_TAKEOVER_SECONDS + 5)));
    const [file] = await listFileRecords(requestId);
    const results = await Promise.all([finishPending([file!], systemClock), finishPending([file!], systemClock)]);
    expect(results.map(([f]) => f!.status).sort()).toEqual(["counting", "done"]);
    expect(await used()).toBe(4);
    await countSettled(requestId, [settledFileOf({ ...file!, status: "done" })], systemClock);
    // A third finisher with the same old read, after the markers are gone: still nothing.
    await finishPending([file!], systemClock);
    expect(await used()).toBe(4);
  });

  it("a claimer whose count fails releases its claims, and the retry takes them over at once", async () => {
    const { requestId, claims, used } = await claimedRequest("standard", [2, 2]);
    armFaults([{ service: "dynamodb", command: "UpdateCommand", detail: "PAGES#", action: "fail" }]);
    await expect(finishClaimed(claims, systemClock)).rejects.toThrow();
    const released = await listFileRecords(requestId);
    expect(released.map((f: FileRecord) => [f.status, f.countingAt])).toEqual([
      ["counting", RELEASED_CLAIM],
      ["counting", RELEASED_CLAIM],
    ]);
    expect((await finishPending(released, systemClock)).map((f) => f.status)).toEqual(["done", "done"]);
    expect(await used()).toBe(4);
  });
});
