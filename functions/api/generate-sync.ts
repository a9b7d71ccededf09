import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { generateSync, SyncDeadlineExceeded } from "#shared/generation/generate-sync.ts";
import { replaySync, toStoredSync } from "#shared/generation/replay-sync.ts";
import { DEFAULT_FILE_RETENTION_DAYS } from "#shared/generation/retention.ts";
import { validateGenerationBody } from "#shared/generation/validate-request.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import type { ApiResult } from "#shared/http/api-types.ts";
import { withIdempotencyKey } from "#shared/http/idempotent.ts";
import { syncResponse } from "#shared/http/sync-response.ts";
import { getRenderer } from "#shared/render/renderer.ts";

/** Leaves time to store the files and answer before the 60 s gateway deadline. */
const storeMarginMs = (remaining: number) => Math.min(5_000, remaining * 0.1);

/** What API Gateway answers past its integration time-out (spec 7.1: 504 from the layer in front). */
const GATEWAY_TIMEOUT = { status: 504, json: { message: "Endpoint request timed out" } };

/** POST /v1/file/sync/single and /v1/file/sync/multiple (spec 4.1, 4.2). */
export const handler = apiHandler(async (req): Promise<ApiResult> => {
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
        budgetMs: req.remainingMs() - storeMarginMs(req.remainingMs()),
      }),
    toStoredSync,
  ).catch((err) => {
    if (err instanceof SyncDeadlineExceeded) return undefined;
    throw err;
  });
  if (!outcome) return GATEWAY_TIMEOUT;
  const result = "fresh" in outcome ? outcome.fresh : await replaySync(outcome.replay, workspace.id);
  // spec 4.1: only the `response=json` query switches the format, never Accept.
  return syncResponse(result, { mode, json: req.query("response") === "json", siteUrl });
});
