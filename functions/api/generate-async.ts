import { config, fileRetentionDays } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { acceptAsync, type AcceptedFile } from "#shared/generation/async/index.ts";
import { validateGenerationBody } from "#shared/generation/requests/index.ts";
import { outputHistoryUrl, withIdempotencyKey } from "#shared/generation/http/index.ts";
import { apiHandler } from "#shared/http/api-handler.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";

/** A replay answers the same requestId and files; the passcodes were shown once only. */
const withoutPasscodes = (accepted: { requestId: string; files: AcceptedFile[] }) => ({
  requestId: accepted.requestId,
  files: accepted.files.map(({ share: { passcode: _shown, ...share }, ...f }) => ({ ...f, share })),
});

/**
 * POST /v1/file/async/single and /v1/file/async/multiple (OpenAPI generateAsyncSingle, generateAsyncMultiple):
 * 202 at once.
 */
export const handler = apiHandler(async function handleGenerateAsync(req) {
  const mode = req.event.resource.endsWith("/multiple") ? "multiple" : "single";
  const { siteUrl } = config();
  const outcome = await withIdempotencyKey(
    req,
    () =>
      acceptAsync(req.principal.workspace, validateGenerationBody(req.bodyText(), mode), {
        clock: systemClock,
        siteUrl,
        retentionDays: fileRetentionDays(),
        pages: dynamoPageCounter,
      }),
    withoutPasscodes,
  );
  const accepted = "fresh" in outcome ? outcome.fresh : outcome.replay;
  return {
    status: 202,
    headers: { "Request-Id": accepted.requestId },
    json: { requestId: accepted.requestId, url: outputHistoryUrl(siteUrl, accepted.requestId), files: accepted.files },
  };
});
