import { PlatenError } from "#shared/errors/platen-error.ts";
import { getPdf, listFileRecords } from "#shared/generation/store/index.ts";
import type { GeneratedFile, SyncGeneration } from "./sync-generation.ts";

/** What an idempotent replay of a sync request keeps: ids and names, never PDFs or passcodes. */
export interface StoredSync {
  requestId: string;
  designLabel: string;
  files: Omit<GeneratedFile, "pdf">[];
}

export function toStoredSync(result: SyncGeneration): StoredSync {
  return {
    requestId: result.requestId,
    designLabel: result.designLabel,
    files: result.files.map(({ pdf: _pdf, share, ...rest }) => ({ ...rest, share: { ...share, passcode: undefined } })),
  };
}

/** Rebuilds the original sync result from the stored files (passcodes were shown once only). */
export async function replaySync(stored: StoredSync, workspaceId: string): Promise<SyncGeneration> {
  const records = new Map((await listFileRecords(stored.requestId)).map((r) => [r.fileId, r]));
  const files = await Promise.all(
    stored.files.map(async (f) => {
      const record = records.get(f.fileId);
      if (!record?.s3Key || record.workspaceId !== workspaceId) throw new PlatenError("FILE_NOT_FOUND");
      const { passcode: _shown, ...share } = f.share;
      return { ...f, share, pdf: await getPdf(record.s3Key) };
    }),
  );
  return { requestId: stored.requestId, designLabel: stored.designLabel, files };
}
