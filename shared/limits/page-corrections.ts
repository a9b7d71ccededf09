import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { isConditionalCheckFailed } from "#shared/aws/conditional-update.ts";
import { config } from "#shared/aws/config.ts";
import { type PageSpread, pageItemKey } from "./page-shards.ts";

/**
 * Where an async file's pages are counted: its request's month and, on a stopping plan, the limit;
 * on a plan that never stops, the request item its writes go to (page-shards.ts).
 */
export interface PageAccount {
  workspaceId: string;
  month: string;
  limit?: number;
  spread?: PageSpread;
}

/**
 * What a file's page correction came to, recorded on the usage item under the file's
 * marker until the file is counted: `claimed` (its real pages count, the reservation
 * included), `refused` (they would have crossed a stopping plan's limit: the file is not
 * delivered and its reservation is returned) or `released` (the file failed: likewise).
 */
export type FileCorrection = { kind: "claimed"; pages: number } | { kind: "refused" } | { kind: "released" };

const usageKey = (account: Pick<PageAccount, "workspaceId" | "month" | "limit" | "spread">) =>
  pageItemKey(account.workspaceId, account.month, account.limit === undefined ? account.spread : undefined);
const markerName = (fileId: string) => `file:${fileId}`;

const encode = (c: FileCorrection) => (c.kind === "claimed" ? `claimed:${c.pages}` : c.kind);
function decode(value: unknown): FileCorrection | undefined {
  if (typeof value !== "string") return undefined;
  if (value.startsWith("claimed:")) return { kind: "claimed", pages: Number(value.slice(8)) };
  return value === "refused" || value === "released" ? { kind: value } : undefined;
}

/**
 * Corrects the one page reserved for an async file at acceptance, exactly once per file:
 * the correction and its marker are one conditional write on the month's usage item, so a
 * retry (after a crash, a failed write or a duplicate message) finds the marker and gets
 * the first outcome back instead of counting again. `pages`: the real page count of a
 * rendered file, undefined for a failed one. On a stopping plan a rendered file whose
 * pages would take the month past the limit is `refused` and its page returned.
 */
export async function correctFilePages(
  account: PageAccount,
  fileId: string,
  pages: number | undefined,
): Promise<FileCorrection> {
  if (pages !== undefined) {
    const claimed = await apply(account, fileId, { kind: "claimed", pages }, pages - 1);
    if (claimed) return claimed;
    const earlier = await markerOf(account, fileId);
    if (earlier) return earlier;
  }
  return (
    (await apply(account, fileId, { kind: pages === undefined ? "released" : "refused" }, -1)) ??
    (await markerOf(account, fileId))!
  );
}

/**
 * Corrects the reservations of several files of one request in one write, on a plan that never
 * stops (nothing can be refused): their pages added together and each file's marker set, only if
 * none of them has a marker yet, so the write is all or nothing and exactly once like one file's.
 * False when one has (a replay, a retried write): each file is then corrected on its own
 * (`correctFilePages`, which returns its first outcome). `pages` undefined: the file failed.
 */
export async function correctFilesPages(
  account: PageAccount,
  files: { fileId: string; pages: number | undefined }[],
): Promise<boolean> {
  if (account.limit !== undefined) throw new Error("a stopping plan's files are corrected one by one");
  const names = Object.fromEntries(files.map((f, i) => [`#marker${i}`, markerName(f.fileId)]));
  const markers = Object.fromEntries(
    files.map((f, i) => [
      `:marker${i}`,
      encode(f.pages === undefined ? { kind: "released" } : { kind: "claimed", pages: f.pages }),
    ]),
  );
  const delta = files.reduce((n, f) => n + (f.pages === undefined ? -1 : f.pages - 1), 0);
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: usageKey(account),
        UpdateExpression: `ADD pages :delta SET ${files.map((_, i) => `#marker${i} = :marker${i}`).join(", ")}`,
        ConditionExpression: files.map((_, i) => `attribute_not_exists(#marker${i})`).join(" AND "),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ":delta": delta, ...markers },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** The correction's write; undefined when a condition failed (the marker exists, or the limit). */
async function apply(
  account: PageAccount,
  fileId: string,
  c: FileCorrection,
  delta: number,
): Promise<FileCorrection | undefined> {
  const limited = account.limit !== undefined && delta > 0;
  try {
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: usageKey(account),
        UpdateExpression: "ADD pages :delta SET #marker = :marker",
        ConditionExpression: `attribute_not_exists(#marker)${limited ? " AND (attribute_not_exists(pages) OR pages <= :max)" : ""}`,
        ExpressionAttributeNames: { "#marker": markerName(fileId) },
        ExpressionAttributeValues: {
          ":delta": delta,
          ":marker": encode(c),
          ...(limited && { ":max": account.limit! - delta }),
        },
      }),
    );
    return c;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return undefined;
    throw err;
  }
}

/** The correction already recorded for a file, if any. */
export async function markerOf(account: PageAccount, fileId: string): Promise<FileCorrection | undefined> {
  const out = await awsClients().ddb.send(
    new GetCommand({
      TableName: config().tables.usage,
      Key: usageKey(account),
      ConsistentRead: true,
      ProjectionExpression: "#marker",
      ExpressionAttributeNames: { "#marker": markerName(fileId) },
    }),
  );
  return decode(out.Item?.[markerName(fileId)]);
}

/**
 * Drops the markers of files that are settled and counted, so a month's shared item (a stopping plan's,
 * or a shard of the earlier layout) stays small however many files a month has: every write to an item
 * costs its size. A request's own item keeps them (it holds that request's files only): there a
 * second count of a file finds its marker whenever it comes. On a shared item a late finisher could
 * find the marker gone, which is why only the holder of a file's claim counts it (settle-file.ts).
 */
export async function dropMarkers(
  account: Pick<PageAccount, "workspaceId" | "month" | "limit" | "spread">,
  fileIds: string[],
): Promise<void> {
  if (!fileIds.length || (account.limit === undefined && account.spread?.layout === "request")) return;
  const names = Object.fromEntries(fileIds.map((id, i) => [`#m${i}`, markerName(id)]));
  await awsClients()
    .ddb.send(
      new UpdateCommand({
        TableName: config().tables.usage,
        Key: usageKey(account),
        UpdateExpression: `REMOVE ${Object.keys(names).join(", ")}`,
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: names,
      }),
    )
    .catch((err: { name?: string }) => {
      if (!isConditionalCheckFailed(err)) throw err;
    });
}
