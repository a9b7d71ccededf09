import type * as z from "zod";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { checkParams, documentLimitError } from "#shared/generation/requests/index.ts";
import { RenderError, type RenderedPdf, type Renderer } from "#shared/render/renderer.ts";
import { systemClock } from "#shared/clock.ts";
import { countPreviewPages, type PreviewAllowanceDeps } from "#shared/limits/preview-allowance.ts";
import { dynamoPreviewCounter } from "#shared/limits/usage-table.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { rawFromJsonForm } from "./bundle-codec.ts";
import { strictBundle } from "./bundle-rules.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";
import { type DesignBundle, EINVOICE_MAPPING_FILE } from "#shared/designs/bundle-schema.ts";
import { activeDesign, readDraft, versionOf } from "./design-lifecycle.ts";
import type { previewBody } from "./request-bodies.ts";
import { loadBundle } from "#shared/designs/find-design-version.ts";

/**
 * What a preview renders: the bundle, the key its compiled template is cached under, and the params; and the
 * workspace whose preview allowance its pages count against (none: `npm run design:dev` on a developer's machine).
 */
export interface PreviewSource {
  bundle: DesignBundle;
  bundleKey: string;
  params: Record<string, unknown>;
  /** The params as given, which an e-invoice mapping renders (every key, as generation's mapping does). */
  mappingParams?: Record<string, unknown>;
  workspaceId?: string;
}

/** The source of a design API preview body: an inline bundle, a design's draft or one of its versions. */
export async function previewSource(workspaceId: string, body: z.infer<typeof previewBody>): Promise<PreviewSource> {
  let bundle: DesignBundle;
  let bundleKey: string;
  if (body.bundle) {
    bundle = strictBundle(rawFromJsonForm(body.bundle));
    bundleKey = `${workspaceId}/preview#${Math.random().toString(36).slice(2)}`;
  } else if (body.draft) {
    const head = await activeDesign(workspaceId, body.designId!);
    const draft = await readDraft(head);
    if (!draft)
      throw new PlatenError("VALIDATION_FAILED", {
        details: [{ field: "draft", text: authoringText.noDraft }],
      });
    bundle = strictBundle(draft.raw);
    bundleKey = `${workspaceId}/${head.id}/${head.draftKey}`;
  } else {
    const version = await versionOf(workspaceId, body.designId!, body.version!);
    bundle = await loadBundle(version);
    bundleKey = `${workspaceId}/${version.designId}@${version.version}`;
  }
  return { ...bundlePreviewSource(bundle, bundleKey, body.params), workspaceId };
}

/** What a preview of a checked bundle renders: `params` (default: its sampleParams) checked as generation checks them. */
export function bundlePreviewSource(
  bundle: DesignBundle,
  bundleKey: string,
  params: Record<string, unknown> = bundle.manifest.sampleParams ?? {},
): PreviewSource {
  const { values, mismatches } = checkParams(bundle.manifest.parameters, params, "params");
  if (mismatches.length) throw new PlatenError("PARAMS_TYPE_MISMATCH", { details: mismatches });
  return { bundle, bundleKey, params: values, ...(bundle.einvoiceMapping !== undefined && { mappingParams: params }) };
}

/** A preview's Title, whatever the design's `metadata.title` says. */
export const previewTitle = (bundle: DesignBundle): string => `PREVIEW ${bundle.manifest.label}`;

const allowanceDeps: PreviewAllowanceDeps = {
  clock: systemClock,
  counter: dynamoPreviewCounter,
  workspace: getWorkspace,
};

/**
 * Renders a preview PDF: the same renderer and limits as generation, then the PREVIEW mark stamped onto every page
 * and the preview's Title (shared/authoring/README.md#preview). Nothing is stored or billed; a workspace's preview
 * counts its pages against the plan's preview allowance (403 PREVIEW_ALLOWANCE_EXCEEDED once spent). A document's
 * own failure is the client's error (422), a template error names the template.
 */
export async function renderPreview(
  renderer: Renderer,
  source: PreviewSource,
  deps: PreviewAllowanceDeps = allowanceDeps,
): Promise<{ pdf: Buffer; pageCount: number }> {
  const render = () => renderMarked(renderer, source);
  return source.workspaceId ? countPreviewPages(source.workspaceId, render, deps) : render();
}

async function renderMarked(renderer: Renderer, source: PreviewSource): Promise<{ pdf: Buffer; pageCount: number }> {
  const title = previewTitle(source.bundle);
  let printed: RenderedPdf;
  try {
    const { bundle, bundleKey, params, mappingParams } = source;
    printed = await renderer.renderPdf({
      bundle,
      bundleKey,
      params,
      ...(mappingParams && { mappingParams }),
      title,
      metadata: { title },
    });
  } catch (err) {
    throw previewRenderError(err);
  }
  // Last, on the post-processed file: nothing the design wrote comes after the mark (shared/render/README.md#the-preview-mark).
  const { stampPreviewMark } = await import("#shared/render/preview-stamp.ts");
  return stampPreviewMark(printed.pdf, title);
}

/** A render failure as the preview answers it. */
function previewRenderError(err: unknown): unknown {
  if (err instanceof RenderError && err.code === "TEMPLATE_FAILED") {
    return new PlatenError("DESIGN_BUNDLE_INVALID", {
      details: [
        {
          // The renderer names the mapping in its message when the mapping failed.
          file: err.message.startsWith(`${EINVOICE_MAPPING_FILE}:`) ? EINVOICE_MAPPING_FILE : "template.liquid",
          code: "TEMPLATE_FAILED",
          text: fillBoth(authoringText.templateFailed, { reason: err.message }),
        },
      ],
      cause: err,
    });
  }
  if (err instanceof RenderError && err.code === "RENDER_TIMEOUT")
    return new PlatenError("RENDER_TIMEOUT", { cause: err });
  // No browser free in time: the renderer is busy, so "try again", as a full queue says.
  if (err instanceof RenderError && err.code === "BROWSER_BUSY")
    return new PlatenError("RENDER_QUEUE_FULL", { cause: err });
  const refused = documentLimitError(err);
  // The studio points at the mapping: every rule the invoice breaks is a problem of einvoice.liquid.
  if (refused?.code === "EINVOICE_INVALID") {
    return new PlatenError("EINVOICE_INVALID", {
      details: refused.details.map((d) => ({ file: EINVOICE_MAPPING_FILE, ...d })),
      cause: err,
    });
  }
  return refused ?? err;
}

/**
 * A preview as page images, what the design studio and `npm run design:dev` show: the marked
 * PDF of `renderPreview` (the mark is in the PDF, so in every image), then its first `maxPages` pages drawn as PNG by pdf.js in the
 * renderer's Chromium. Drawing stops early once `superseded()` says a newer preview is wanted.
 */
export async function renderPreviewPages(
  renderer: Renderer,
  source: PreviewSource,
  { maxPages, superseded = () => false }: { maxPages: number; superseded?: () => boolean },
): Promise<{ pdf: Buffer; pageCount: number; pages: Buffer[] }> {
  const { pdf, pageCount } = await renderPreview(renderer, source);
  const pages: Buffer[] = [];
  for (let page = 1; page <= Math.min(pageCount, maxPages) && !superseded(); page++)
    pages.push(await renderer.pageImage(pdf, page));
  return { pdf, pageCount, pages };
}
