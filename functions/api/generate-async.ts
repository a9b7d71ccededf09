import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { acceptAsync } from "#shared/generation/accept-async.ts";
import { DEFAULT_FILE_RETENTION_DAYS } from "#shared/generation/retention.ts";
import { validateGenerationBody } from "#shared/generation/validate-request.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import { outputHistoryUrl } from "#shared/http/sync-response.ts";

/** POST /v1/file/async/single and /v1/file/async/multiple (spec 4.3, 4.4): 202 at once. */
export const handler = apiHandler(async (req) => {
  const mode = req.event.resource.endsWith("/multiple") ? "multiple" : "single";
  const raw = req.event.isBase64Encoded && req.event.body ? Buffer.from(req.event.body, "base64").toString("utf8") : req.event.body;
  const request = validateGenerationBody(raw, mode);
  const { siteUrl } = config();
  const accepted = await acceptAsync(req.principal.workspace.id, request, {
    clock: systemClock,
    siteUrl,
    retentionDays: DEFAULT_FILE_RETENTION_DAYS,
  });
  return {
    status: 202,
    headers: { "Request-Id": accepted.requestId },
    json: { requestId: accepted.requestId, url: outputHistoryUrl(siteUrl, accepted.requestId), files: accepted.files },
  };
});
