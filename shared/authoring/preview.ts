import type * as z from "zod";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { checkParams } from "#shared/generation/params-check.ts";
import { documentLimitError } from "#shared/generation/document-failure.ts";
import { RenderError, type Renderer } from "#shared/render/renderer.ts";
import { rawFromJsonForm } from "./bundle-codec.ts";
import { strictBundle } from "./bundle-rules.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { activeDesign, readDraft, versionOf } from "./design-api.ts";
import type { previewBody } from "./request-bodies.ts";
import { loadBundle } from "#shared/designs/find-design-version.ts";

/**
 * The mark every preview carries: real text (a text search finds "PREVIEW") across every
 * page, drawn after the design's own CSS so it stays on top.
 */
export const PREVIEW_MARK_CSS = `
html::after { content: "PREVIEW" !important; position: fixed !important; inset: 0 !important;
  display: flex !important; align-items: center !important; justify-content: center !important;
  transform: rotate(-35deg) !important; font: 700 96pt sans-serif !important; letter-spacing: 0.2em !important;
  color: rgba(200, 30, 30, 0.22) !important; pointer-events: none !important; z-index: 2147483647 !important;
  visibility: visible !important; opacity: 1 !important; }`;

/** What a preview renders: the bundle, the key its compiled template is cached under, and the params. */
export interface PreviewSource {
  bundle: DesignBundle;
  bundleKey: string;
  params: Record<string, unknown>;
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
        details: [
          { field: "draft", message: "the design has no draft", messageJa: "このデザインには下書きがありません" },
        ],
      });
    bundle = strictBundle(draft.raw);
    bundleKey = `${workspaceId}/${head.id}/${head.draftKey}`;
  } else {
    const version = await versionOf(workspaceId, body.designId!, body.version!);
    bundle = await loadBundle(version);
    bundleKey = `${workspaceId}/${version.designId}@${version.version}`;
  }
  return bundlePreviewSource(bundle, bundleKey, body.params);
}

/** What a preview of a checked bundle renders: `params` (default: its sampleParams) checked as generation checks them. */
export function bundlePreviewSource(
  bundle: DesignBundle,
  bundleKey: string,
  params: Record<string, unknown> = bundle.manifest.sampleParams ?? {},
): PreviewSource {
  const { values, mismatches } = checkParams(bundle.manifest.parameters, params, "params");
  if (mismatches.length) throw new PlatenError("PARAMS_TYPE_MISMATCH", { details: mismatches });
  return { bundle, bundleKey, params: values };
}

/**
 * Renders a preview PDF: the same renderer and limits as generation, plus the mark; nothing
 * is stored or counted. A document's own failure is the client's error (422), a template
 * error names the template.
 */
export async function renderPreview(
  renderer: Renderer,
  source: PreviewSource,
): Promise<{ pdf: Buffer; pageCount: number }> {
  try {
    return await renderer.renderPdf({
      ...source,
      title: `PREVIEW ${source.bundle.manifest.label}`,
      extraCss: PREVIEW_MARK_CSS,
    });
  } catch (err) {
    if (err instanceof RenderError && err.code === "TEMPLATE_FAILED") {
      throw new PlatenError("DESIGN_BUNDLE_INVALID", {
        details: [
          {
            file: "template.liquid",
            code: "TEMPLATE_FAILED",
            message: err.message,
            messageJa: `テンプレートを描画できません: ${err.message}`,
          },
        ],
        cause: err,
      });
    }
    if (err instanceof RenderError && err.code === "RENDER_TIMEOUT")
      throw new PlatenError("RENDER_TIMEOUT", { cause: err });
    // No browser free in time: the renderer is busy, so "try again", as a full queue says.
    if (err instanceof RenderError && err.code === "BROWSER_BUSY")
      throw new PlatenError("RENDER_QUEUE_FULL", { cause: err });
    throw documentLimitError(err) ?? err;
  }
}

/**
 * A preview as page images, what the design studio and `npm run design:dev` show: the marked
 * PDF of `renderPreview`, then its first `maxPages` pages drawn as PNG by pdf.js in the
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
