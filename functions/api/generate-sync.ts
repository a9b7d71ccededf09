import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { generateSync } from "#shared/generation/generate-sync.ts";
import { replaySync, toStoredSync } from "#shared/generation/replay-sync.ts";
import { DEFAULT_FILE_RETENTION_DAYS } from "#shared/generation/retention.ts";
import { validateGenerationBody } from "#shared/generation/validate-request.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import { withIdempotencyKey } from "#shared/http/idempotent.ts";
import { syncResponse } from "#shared/http/sync-response.ts";
import { getRenderer } from "#shared/render/renderer.ts";

/** Leaves time to store the files and answer before the 60 s gateway deadline. */
const STORE_MARGIN_MS = 5_000;

/** POST /v1/file/sync/single and /v1/file/sync/multiple (spec 4.1, 4.2). */
export const handler = apiHandler(async (req) => {
  const mode = req.event.resource.endsWith("/multiple") ? "multiple" : "single";
  const { siteUrl } = config();
  const workspace = req.principal.workspace;
  const outcome = await withIdempotencyKey(
    req,
    () =>
      generateSync(workspace, validateGenerationBody(req.bodyText(), mode), {
        clock: systemClock,
        renderer: getRenderer(),
        siteUrl,
        retentionDays: DEFAULT_FILE_RETENTION_DAYS,
        budgetMs: req.remainingMs() - STORE_MARGIN_MS,
      }),
    toStoredSync,
  );
  const result = "fresh" in outcome ? outcome.fresh : await replaySync(outcome.replay, workspace.id);
  // spec 4.1: only the `response=json` query switches the format, never Accept.
  return syncResponse(result, { mode, json: req.query("response") === "json", siteUrl });
});
