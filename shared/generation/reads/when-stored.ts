import type { Clock } from "#shared/clock.ts";
import { catalogue } from "#shared/errors/catalogue.ts";
import type { FileRecord } from "#shared/generation/store/index.ts";

/** How long a reader waits for sync files being stored (normally milliseconds) before answering "not ready". */
const STORE_WAIT_MS = 3_000;
/** First re-read after this, then twice as long each time (20, 40, … 640 ms: about 8 reads in all). */
const FIRST_POLL_MS = 20;

/**
 * Sync files are answered before they are stored (sync-generation.ts), so a client may ask
 * for one while it is still `storing`. Readers load through this: while a file is being
 * stored the records are read again (up to STORE_WAIT_MS), and a file still `storing`
 * after its `storeBy` — the function died before storing it — reads as failed with
 * GENERATION_INTERRUPTED. A file still being stored after the wait stays `storing`.
 */
export async function whenStored(load: () => Promise<FileRecord[]>, clock: Clock): Promise<FileRecord[]> {
  const waitUntil = performance.now() + STORE_WAIT_MS;
  for (let pause = FIRST_POLL_MS; ; pause *= 2) {
    const nowSeconds = Math.floor(clock.now().getTime() / 1000);
    const files = (await load()).map((f) => settledView(f, nowSeconds));
    const left = waitUntil - performance.now();
    if (!files.some((f) => f.status === "storing") || left <= 0) return files;
    await new Promise((r) => setTimeout(r, Math.min(pause, left)));
  }
}

function settledView(f: FileRecord, nowSeconds: number): FileRecord {
  if (f.status !== "storing" || (f.storeBy ?? 0) > nowSeconds) return f;
  return {
    ...f,
    status: "failed",
    errorCode: "GENERATION_INTERRUPTED",
    errorMessage: catalogue.GENERATION_INTERRUPTED.en,
  };
}
