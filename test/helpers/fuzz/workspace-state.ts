import { type FileRecord, resolveStored } from "#shared/generation/store/index.ts";
import { pagesUsedNow } from "../limits-stack.ts";
import type { RunningStack } from "../local-stack.ts";
import { fileRecordsOfWorkspace } from "../stack-clients.ts";

/**
 * What a refused request must not change in a workspace: the pages counted this month, the
 * file records, the designs (with their versions, drafts and archive mark) and the webhook
 * endpoints. A batch of requests is compared before and after; only what a successful
 * request names (the ledger) may differ.
 */
export interface WorkspaceState {
  pages: number;
  /** `requestId/fileId` → page count of the file when known. */
  files: Map<string, { requestId: string; pageCount: number }>;
  /** design id → its listed fields. */
  designs: Map<string, string>;
  /** endpoint id → its listed fields. */
  endpoints: Map<string, string>;
}

/** Reads one list of a workspace over HTTP: the designs (archived too) and the webhook endpoints. */
export interface StateReaders {
  designs(): Promise<Record<string, unknown>[]>;
  endpoints(): Promise<Record<string, unknown>[]>;
}

export async function readState(stack: RunningStack, workspaceId: string, read: StateReaders): Promise<WorkspaceState> {
  const pages = await pagesUsedNow(stack, workspaceId);
  // A stored sync file's record may still say `storing`: its page count is on its PDF (resolveStored), read without writing.
  const records = await resolveStored((await fileRecordsOfWorkspace(workspaceId)) as unknown as FileRecord[], {
    record: false,
  });
  const files = new Map(
    records.map((r) => [`${r.requestId}/${r.fileId}`, { requestId: r.requestId, pageCount: r.pageCount ?? 0 }]),
  );
  const designs = new Map((await read.designs()).map((d) => [String(d.id), JSON.stringify(d)]));
  const endpoints = new Map((await read.endpoints()).map((e) => [String(e.id), JSON.stringify(e)]));
  return { pages, files, designs, endpoints };
}

/** What successful requests of a batch named: only these may change. */
export class Ledger {
  readonly requestIds = new Set<string>();
  readonly designs = new Set<string>();
  readonly endpoints = new Set<string>();
  /** A successful set-workspace-webhook may add, change or remove any endpoint. */
  anyEndpoint = false;
  successes = 0;
}

export function stateChanges(before: WorkspaceState, after: WorkspaceState, ledger: Ledger): string[] {
  const problems: string[] = [];
  let newPages = 0;
  for (const [key, file] of after.files) {
    if (before.files.has(key)) continue;
    if (!ledger.requestIds.has(file.requestId)) problems.push(`file record ${key} of no successful request`);
    newPages += file.pageCount;
  }
  if (after.pages - before.pages !== newPages)
    problems.push(`${after.pages - before.pages} pages counted, ${newPages} in the new files`);
  for (const id of new Set([...before.designs.keys(), ...after.designs.keys()])) {
    if (before.designs.get(id) !== after.designs.get(id) && !ledger.designs.has(id))
      problems.push(`design ${id} changed without a successful request naming it`);
  }
  if (!ledger.anyEndpoint) {
    for (const id of new Set([...before.endpoints.keys(), ...after.endpoints.keys()])) {
      if (before.endpoints.get(id) !== after.endpoints.get(id) && !ledger.endpoints.has(id))
        problems.push(`webhook endpoint ${id} changed without a successful request naming it`);
    }
  }
  return problems;
}
