import { type PageCounter, planOf } from "#shared/limits/page-quota.ts";
import type { Workspace } from "#shared/workspaces/workspace-store.ts";
import { billedByRequest, dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { type FileRecord, isFinal, listWorkspaceFiles } from "#shared/generation/store/index.ts";

/**
 * Usage reconciliation (shared/limits/README.md#billing-reconciliation): a month's billed pages
 * against the pages of the files recorded as delivered, in total and request by request.
 */

/** One request of the month as reconciliation sees it. */
export interface RequestUsage {
  requestId: string;
  source: "sync" | "async";
  /** Pages of its files that are done. */
  delivered: number;
  /** Pages billed to it: known for requests counted on their own item (plans that never stop). */
  billed?: number;
  /** Files not final yet (queued, rendering, counting, storing): the request cannot be judged yet. */
  pending: number;
}

export interface UsageReconciliation {
  workspaceId: string;
  month: string;
  /** The month's count: what the workspace is billed. */
  billed: number;
  /** The pages of the month's delivered files. */
  delivered: number;
  /** Requests still in flight (left out of the differences). */
  pending: string[];
  /** Settled requests whose billed pages differ from their delivered pages. */
  differences: RequestUsage[];
  /** Whether billed = delivered for the month and for every settled request. */
  ok: boolean;
}

/** Where reconciliation reads: the month's count, the pages billed per request, the month's file records. */
export interface ReconcilePorts {
  pages: PageCounter;
  billedByRequest(workspaceId: string, month: string): Promise<Map<string, number>>;
  listFiles(workspaceId: string, from: string, to: string): Promise<FileRecord[]>;
}

/** The stores: the usage table and the files table's `byWorkspace` index. */
export const storedReconcilePorts: ReconcilePorts = {
  pages: dynamoPageCounter,
  billedByRequest,
  listFiles: listWorkspaceFiles,
};

const nextMonth = (month: string): string => {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
};

/** The month a file's pages were counted in: its reservation's, or (sync) the month it was made in. */
const monthOfFile = (f: FileRecord) => f.usageMonth ?? f.createdAt.slice(0, 7);

/** Groups the month's files by request: pages delivered and files still in flight. */
function usageByRequest(files: FileRecord[], month: string): Map<string, RequestUsage> {
  const requests = new Map<string, RequestUsage>();
  for (const f of files) {
    if (monthOfFile(f) !== month) continue;
    const r = requests.get(f.requestId) ?? { requestId: f.requestId, source: f.source, delivered: 0, pending: 0 };
    if (f.status === "done") r.delivered += f.pageCount ?? 0;
    else if (!isFinal(f)) r.pending += 1;
    requests.set(f.requestId, r);
  }
  return requests;
}

/**
 * Reconciles a workspace's month: its count against its file records created in the month (a
 * reservation is made at acceptance, when the records are created, and counted in that month).
 * Records live for the workspace's file retention, so a month is reconciled within that retention.
 * Per request, the billed pages are known on plans that never stop (each request's own item);
 * on stopping plans the month's total is compared.
 */
export async function reconcileUsage(
  workspace: Workspace,
  month: string,
  ports: ReconcilePorts,
): Promise<UsageReconciliation> {
  const [billed, perRequest, files] = await Promise.all([
    ports.pages.used(workspace.id, month),
    planOf(workspace).stops ? Promise.resolve(new Map<string, number>()) : ports.billedByRequest(workspace.id, month),
    ports.listFiles(workspace.id, `${month}-01T00:00:00.000Z`, `${nextMonth(month)}-01T00:00:00.000Z`),
  ]);
  const requests = usageByRequest(files, month);
  // A request billed on its own item with no file left (its acceptance died before writing them).
  for (const requestId of perRequest.keys())
    if (!requests.has(requestId)) requests.set(requestId, { requestId, source: "async", delivered: 0, pending: 0 });
  const all = [...requests.values()].map((r) => ({
    ...r,
    ...(perRequest.has(r.requestId) && { billed: perRequest.get(r.requestId) }),
  }));
  const pending = all.filter((r) => r.pending > 0).map((r) => r.requestId);
  const differences = all.filter((r) => r.pending === 0 && r.billed !== undefined && r.billed !== r.delivered);
  const delivered = all.reduce((n, r) => n + r.delivered, 0);
  return {
    workspaceId: workspace.id,
    month,
    billed,
    delivered,
    pending,
    differences,
    ok: differences.length === 0 && (pending.length > 0 || billed === delivered),
  };
}
