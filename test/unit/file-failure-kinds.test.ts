import { describe, expect, it } from "vitest";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { permanentFileFailure } from "#shared/generation/requests/index.ts";
import { RenderError } from "#shared/render/renderer.ts";

/**
 * Which failures of a queued file are final at once and which are retried (`permanentFileFailure`): what the
 * document or its design causes never changes on a retry; a crash, a busy renderer or a storage error may.
 */

const awsError = (name: string) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 500 } });

describe("permanentFileFailure", () => {
  it.each([
    ["RENDER_TIMEOUT", "RENDER_TIMEOUT"],
    ["PAGE_LIMIT_EXCEEDED", "DOCUMENT_PAGE_LIMIT_EXCEEDED"],
    ["HTML_TOO_LARGE", "DOCUMENT_HTML_LIMIT_EXCEEDED"],
    ["PDF_TOO_LARGE", "DOCUMENT_PDF_LIMIT_EXCEEDED"],
    ["TEMPLATE_FAILED", "TEMPLATE_FAILED"],
    ["DOCUMENT_DATA_INVALID", "VALIDATION_FAILED"],
  ] as const)("%s is permanent (%s)", (code, errorCode) => {
    expect(permanentFileFailure(new RenderError(code, "x", { limit: 1 }))).toMatchObject({ errorCode });
  });

  it.each(["DESIGN_NOT_FOUND", "DESIGN_VERSION_NOT_FOUND"] as const)(
    "a design that is gone (%s) is permanent",
    (code) => {
      expect(permanentFileFailure(new PlatenError(code))).toMatchObject({ errorCode: code });
    },
  );

  it.each([
    ["a browser crash", new RenderError("RENDER_FAILED", "Chromium failed to render the document")],
    ["a busy renderer", new RenderError("BROWSER_BUSY", "no browser became free in time")],
    ["an S3 error", awsError("InternalError")],
    ["DynamoDB throttling", awsError("ProvisionedThroughputExceededException")],
    ["a failed write of ours", new PlatenError("INTERNAL_ERROR")],
  ])("%s is retried", (_name, err) => {
    expect(permanentFileFailure(err)).toBeUndefined();
  });
});
