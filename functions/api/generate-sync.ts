import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { generateSync } from "#shared/generation/generate-sync.ts";
import { validateGenerationBody } from "#shared/generation/validate-request.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import { syncResponse } from "#shared/http/sync-response.ts";
import { getRenderer } from "#shared/render/renderer.ts";
import { DEFAULT_FILE_RETENTION_DAYS } from "#shared/generation/retention.ts";

/** Leaves time to store the files and answer before the 60 s gateway deadline. */
const STORE_MARGIN_MS = 5_000;

/** POST /v1/file/sync/single and /v1/file/sync/multiple (spec 4.1, 4.2). */
export const handler = apiHandler(async (req) => {
  const mode = req.event.resource.endsWith("/multiple") ? "multiple" : "single";
  const raw = req.event.isBase64Encoded && req.event.body ? Buffer.from(req.event.body, "base64").toString("utf8") : req.event.body;
  const request = validateGenerationBody(raw, mode);
  const result = await generateSync(req.principal.workspace.id, request, {
    clock: systemClock,
    renderer: getRenderer(),
    siteUrl: config().siteUrl,
    retentionDays: DEFAULT_FILE_RETENTION_DAYS,
    budgetMs: req.remainingMs() - STORE_MARGIN_MS,
  });
  // spec 4.1: only the `response=json` query switches the format, never Accept.
  return syncResponse(result, { mode, json: req.query("response") === "json", siteUrl: config().siteUrl });
});
