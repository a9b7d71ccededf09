// First: starts Chromium before the other modules load (a cold start's init phase).
import "#shared/render/launch-at-init.ts";
import { config, fileRetentionDays } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import {
  generateSync,
  prepareSync,
  replaySync,
  startEarlyWork,
  SyncDeadlineExceeded,
  syncMemory,
  toStoredSync,
} from "#shared/generation/sync/index.ts";
import { validateGenerationBody } from "#shared/generation/requests/index.ts";
import {
  checkFileMappingSize,
  fileMappingMaxBytes,
  syncResponse,
  withIdempotencyKey,
} from "#shared/generation/http/index.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { measuredRenderer } from "#shared/render/measured-renderer.ts";
import { getRenderer, launchAtInit } from "#shared/render/renderer.ts";

launchAtInit();

const mappingMaxBytes = fileMappingMaxBytes();

/** Leaves time to store the files and answer before the 60 s gateway deadline. */
const storeMarginMs = (remaining: number) => Math.min(5_000, remaining * 0.1);

/** What API Gateway answers past its integration time-out (README.md#errors: 504 from the layer in front). */
const GATEWAY_TIMEOUT = { status: 504, json: { message: "Endpoint request timed out" } };

/**
 * What this container remembers between requests, for the next one's early work (sync-memory.ts):
 * made once, here, and passed to admission and to the pipeline.
 */
const memory = syncMemory();

/**
 * POST /v1/file/sync/single and /v1/file/sync/multiple (OpenAPI generateSyncSingle, generateSyncMultiple). The
 * answer goes out as soon as the PDFs exist; storing them is the response's after-work (sync-generation.ts).
 * With an Idempotency-Key the files are stored first, so a replay can serve them.
 */
/** Admission runs beside the parsing and templating; the PDF is streamed, then stored. */
const syncRoute = { caller: "early", streaming: true, memory: memory.admissions } as const;

export const handler = apiHandler(syncRoute, async function handleGenerateSync(req): Promise<ApiResult> {
  const mode = req.event.resource.endsWith("/multiple") ? "multiple" : "single";
  const { siteUrl } = config();
  const idempotent = req.header("idempotency-key") !== undefined;
  // OpenAPI generateSyncSingle: only the `response=json` query switches the format, never Accept.
  const format = { mode, json: req.query("response") === "json", siteUrl, mappingMaxBytes } as const;
  const prepare = async (workspaceId: string) => {
    const request = validateGenerationBody(req.bodyText(), mode);
    // Like validation: before any page is reserved, rendered or written.
    if (!format.json) checkFileMappingSize(request, siteUrl, mappingMaxBytes);
    return prepareSync(workspaceId, request, siteUrl);
  };
  const renderer = measuredRenderer(getRenderer());
  const budgetMs = () => req.remainingMs() - storeMarginMs(req.remainingMs());
  // Parse, check and template (a single also renders) while admission runs (early-work.ts);
  // with an Idempotency-Key nothing starts early.
  const early = startEarlyWork(idempotent ? undefined : req.admission, memory, { prepare, renderer, budgetMs });
  const principal = await req.admission.principal;
  const workspace = early.admitted(principal.workspace);
  const outcome = await withIdempotencyKey(
    { ...req, principal },
    async () => {
      // The early work is only used if admission agrees on the workspace.
      const prepared = await early.preparedFor(workspace);
      const generation = await generateSync(workspace, prepared, {
        clock: systemClock,
        renderer,
        retentionDays: fileRetentionDays(),
        budgetMs: budgetMs(),
        pages: dynamoPageCounter,
        memory,
      });
      if (idempotent) {
        // Stored before the answer so a replay can serve it; if that fails, nothing is kept or counted.
        await generation.store().catch(async (err) => {
          await generation.discard();
          throw err;
        });
      }
      return generation;
    },
    toStoredSync,
  ).catch((err) => {
    if (err instanceof SyncDeadlineExceeded) return undefined;
    throw err;
  });
  if (!outcome) return GATEWAY_TIMEOUT;
  if ("replay" in outcome) return syncResponse(await replaySync(outcome.replay, workspace.id), format);
  const generation = outcome.fresh;
  const response = await syncResponse(generation, format).catch(async (err) => {
    if (!idempotent) await generation.discard(); // not answered: undo what was counted and written ahead
    throw err;
  });
  return idempotent ? response : { ...response, after: generation.store };
});
