import { isJsonContentType } from "#shared/validation/content-type.ts";
import * as z from "zod";
import type { Clock } from "#shared/clock.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { issueText } from "#shared/validation/zod-messages.ts";
import { newId } from "#shared/ids.ts";
import { type RawBundle, rawFromJsonForm, rawFromZip, toJsonForm } from "./bundle-codec.ts";
import type * as BundleRules from "./bundle-rules.ts";

/**
 * The bundle checks (LiquidJS, the e-invoice rules, the schema of every file), loaded by the functions that
 * check: the reads of this module (a version, a draft's bundle) are what the editor's first page needs.
 */
const bundleRules = () => import("./bundle-rules.ts");
import type { Bilingual } from "#shared/i18n/texts.ts";
import { authoringText } from "./authoring-text.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { DESIGN_PAGE_SIZE } from "#shared/designs/design-pages.ts";
import { checkDesignText } from "#shared/designs/design-text.ts";
import {
  archiveDesignHead,
  clearDraftKey,
  type DesignHead,
  type DesignVersion,
  deleteObject,
  draftObjectKey,
  getDesignHead,
  getObjectText,
  listDesignVersions,
  putObject,
  setDraftKey,
  storedToBundle,
  bundleToStored,
  updateDesignFields,
} from "#shared/designs/design-store.ts";
import { cachedVersion, loadBundle } from "#shared/designs/find-design-version.ts";
import { type GalleryTemplate, shareTemplate } from "#shared/designs/gallery.ts";
import { type PublishDeps, type Published, publishDesign } from "#shared/designs/publish-design.ts";
import type { patchBody } from "./request-bodies.ts";
export { designDetail, listDesignsPage } from "./design-list.ts";

/** Design ids are 16 characters; anything much longer cannot exist (DynamoDB key sizes). */
const MAX_ID = 64;

/** An active design of the workspace, or 404 DESIGN_NOT_FOUND (unknown, another workspace's, archived). */
export async function activeDesign(workspaceId: string, designId: string): Promise<DesignHead> {
  const head = designId.length <= MAX_ID ? await getDesignHead(workspaceId, designId) : undefined;
  if (!head || head.archived) throw new PlatenError("DESIGN_NOT_FOUND");
  return head;
}

/** A version of an active design, or 404 DESIGN_VERSION_NOT_FOUND. */
export async function versionOf(
  workspaceId: string,
  designId: string,
  rawVersion: string | number,
): Promise<DesignVersion> {
  const version = typeof rawVersion === "number" ? rawVersion : parseVersion(rawVersion);
  // Both reads at once; versions are immutable, so a found one is served from memory next time.
  const [, found] = await Promise.all([
    activeDesign(workspaceId, designId),
    version === undefined || designId.length > MAX_ID ? undefined : cachedVersion(workspaceId, designId, version),
  ]);
  if (!found) throw new PlatenError("DESIGN_VERSION_NOT_FOUND");
  return found;
}

/**
 * Shares a version of an active design to the gallery (POST /templates, and the studio's share
 * form): the entry carries the design's label and the workspace's name as its publisher.
 */
export async function shareDesignVersion(
  workspaceId: string,
  input: { designId: string; version: number; description?: string; tags?: string[] },
  clock: Clock,
): Promise<{ template: GalleryTemplate; version: DesignVersion }> {
  const [head, version] = await Promise.all([
    activeDesign(workspaceId, input.designId),
    versionOf(workspaceId, input.designId, input.version),
  ]);
  // Loaded here only: the workspace store is not otherwise part of the design API's cold start.
  const { getWorkspace } = await import("#shared/workspaces/workspace-store.ts");
  const workspace = await getWorkspace(workspaceId);
  const template = await shareTemplate(
    {
      workspaceId,
      publisher: workspace?.name ?? workspaceId,
      label: head.label,
      version,
      ...(input.description !== undefined && { description: input.description }),
      ...(input.tags && { tags: input.tags }),
    },
    clock,
  );
  return { template, version };
}

const parseVersion = (raw: string) => (/^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : undefined);

/** The design detail (GET /designs/{id}, and the answer of create and PATCH). */
/** A version as the versions list shows it. */
export const versionSummary = (v: DesignVersion) => ({
  version: v.version,
  createdAt: v.createdAt,
  createdBy: v.createdBy ?? "",
  note: v.note ?? "",
  sha256: v.sha256 ?? "",
});

/** GET /designs/{id}/versions: newest first, 30 a page. Versions are numbered 1…latest without gaps. */
export async function listVersionsPage(workspaceId: string, designId: string, page: number) {
  const head = await activeDesign(workspaceId, designId);
  const before = head.latestVersion - (page - 1) * DESIGN_PAGE_SIZE + 1;
  const versions =
    before > 1 ? await listDesignVersions(workspaceId, designId, { limit: DESIGN_PAGE_SIZE, before }) : [];
  return {
    versions: versions.map(versionSummary),
    total: head.latestVersion,
    page,
    pageSize: DESIGN_PAGE_SIZE,
    totalPages: Math.max(1, Math.ceil(head.latestVersion / DESIGN_PAGE_SIZE)),
  };
}

/** GET /designs/{id}/versions/{version}: the summary plus what the version generates from. */
export const versionDetail = (v: DesignVersion) => ({
  ...versionSummary(v),
  parameters: v.manifest.parameters,
  page: v.manifest.page,
  sampleParams: v.manifest.sampleParams ?? {},
});

/** The bundle of a version. */
export const versionBundle = (v: DesignVersion): Promise<DesignBundle> => loadBundle(v);

/** How a create or publish body arrives: a zip, the JSON form, a copy, or the draft. */
export type BundleSource =
  | { kind: "bundle"; raw: RawBundle }
  | { kind: "draft" }
  | { kind: "template"; templateId: string; label?: string };

const publishFields = z
  .object({
    note: z.string().max(1000).optional(),
    expectedLatestVersion: z.number().int().min(0).optional(),
  })
  .strict();

/**
 * Reads a create or publish body: `application/zip` (note and expectedLatestVersion then come
 * from the query), else JSON — the JSON form, `{"from":"draft"}` or `{"fromTemplate": id}`,
 * each with the optional `note` and `expectedLatestVersion`.
 */
export async function readBundleBody(body: {
  contentType?: string;
  bytes: Buffer | null;
  query(name: string): string | undefined;
}): Promise<{ source: BundleSource; note?: string; expectedLatestVersion?: number }> {
  if (/^application\/zip\b/i.test(body.contentType ?? "")) {
    if (!body.bytes?.length) throw invalidBody(authoringText.emptyZip);
    const expected = body.query("expectedLatestVersion");
    const fields = publishFields.safeParse({
      note: body.query("note"),
      expectedLatestVersion: expected === undefined ? undefined : /^\d{1,10}$/.test(expected) ? Number(expected) : NaN,
    });
    if (!fields.success) throw invalidBody(authoringText.zipQuery);
    return { source: { kind: "bundle", raw: await rawFromZip(body.bytes) }, ...fields.data };
  }
  if (body.bytes?.length && !isJsonContentType(body.contentType))
    throw new PlatenError("VALIDATION_FAILED", {
      details: [
        {
          field: "Content-Type",
          text: authoringText.bodyContentType,
        },
      ],
    });
  let json: unknown;
  try {
    json = JSON.parse(body.bytes?.toString("utf8") ?? "");
  } catch {
    throw invalidBody(authoringText.bodyNotZipOrJson);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw invalidBody(authoringText.bodyNotObject);
  const { note, expectedLatestVersion, from, fromTemplate, label, ...rest } = json as Record<string, unknown>;
  const fields = publishFields.safeParse({ note, expectedLatestVersion });
  if (!fields.success)
    throw new PlatenError("VALIDATION_FAILED", {
      details: fields.error.issues.map((i) => ({
        field: i.path.join("."),
        text: { en: i.message, ja: issueText(i).ja },
      })),
    });
  if (from !== undefined) {
    if (from !== "draft" || label !== undefined || fromTemplate !== undefined || Object.keys(rest).length)
      throw invalidBody(authoringText.fromDraftAlone);
    return { source: { kind: "draft" }, ...fields.data };
  }
  if (fromTemplate !== undefined) {
    if (
      typeof fromTemplate !== "string" ||
      Object.keys(rest).length ||
      (label !== undefined && typeof label !== "string")
    )
      throw invalidBody(authoringText.fromTemplateFields);
    // The copy's own label passes the label schema of every other route (it skipped it: a
    // 300,000-character label was stored).
    const checked = checkDesignText({ label });
    return {
      source: {
        kind: "template",
        templateId: fromTemplate,
        ...(checked.label !== undefined && { label: checked.label }),
      },
      ...fields.data,
    };
  }
  return {
    source: { kind: "bundle", raw: rawFromJsonForm({ ...rest, ...(label !== undefined && { label }) }) },
    ...fields.data,
  };
}

const invalidBody = (text: Bilingual) => new PlatenError("VALIDATION_FAILED", { details: [{ text }] });

/** The current draft of a design, as stored (the JSON form's files), or undefined. */
export async function readDraft(head: DesignHead): Promise<{ raw: RawBundle; updatedAt: string } | undefined> {
  if (!head.draftKey) return undefined;
  const text = await getObjectText(head.draftKey);
  if (text === undefined) return undefined;
  const stored = JSON.parse(text) as ReturnType<typeof bundleToStored> & { manifest: Record<string, unknown> };
  const bundle = storedToBundle(stored as never);
  return { raw: { ...bundle, manifest: stored.manifest }, updatedAt: head.draftUpdatedAt ?? "" };
}

/** GET /designs/{id}/draft: the draft in the JSON form with its warnings, or 404 when there is none. */
export async function draftBody(workspaceId: string, designId: string) {
  const head = await activeDesign(workspaceId, designId);
  const draft = await readDraft(head);
  if (!draft)
    throw new PlatenError("DESIGN_NOT_FOUND", {
      details: [{ text: authoringText.noDraft }],
    });
  const { checkBundle, problemAnswer } = await bundleRules();
  return {
    draft: toJsonForm({ ...draft.raw, manifest: draft.raw.manifest as Record<string, unknown> }),
    updatedAt: draft.updatedAt,
    warnings: checkBundle(draft.raw).problems.map(problemAnswer),
  };
}

/**
 * PUT /designs/{id}/draft: replaces the draft (the JSON form), never refused for what it
 * says: its problems come back as `warnings[]`. Each save is a new object the head then
 * names, so a save racing a publish from the draft is never lost (clearDraftKey).
 */
export async function saveDraft(
  workspaceId: string,
  designId: string,
  form: Record<string, unknown>,
  clock: Clock,
): Promise<{ updatedAt: string; warnings: ReturnType<typeof BundleRules.problemAnswer>[] }> {
  await activeDesign(workspaceId, designId);
  const raw = rawFromJsonForm(form);
  const { checkBundle, problemAnswer } = await bundleRules();
  const warnings = checkBundle(raw).problems.map(problemAnswer);
  const key = draftObjectKey(workspaceId, designId, `${Date.now().toString(36)}-${newId(8)}`);
  const at = clock.now().toISOString();
  await putObject(key, JSON.stringify(bundleToStored({ ...raw, manifest: raw.manifest as never })), "application/json");
  const set = await setDraftKey(workspaceId, designId, key, at);
  if (!set) {
    await deleteObject(key);
    throw new PlatenError("DESIGN_NOT_FOUND");
  }
  if (set.previous) await deleteObject(set.previous).catch(() => undefined);
  return { updatedAt: at, warnings };
}

/** DELETE /designs/{id}/draft: 204 whether or not there was one. */
export async function discardDraft(workspaceId: string, designId: string): Promise<void> {
  const head = await activeDesign(workspaceId, designId);
  if (head.draftKey && (await clearDraftKey(workspaceId, designId, head.draftKey)))
    await deleteObject(head.draftKey).catch(() => undefined);
}

/**
 * Publishes the next version of a design from a bundle or its draft (strict checks: the draft's
 * warnings are errors here). A published draft is cleared unless it was saved again meanwhile.
 */
export async function publishVersion(
  input: {
    workspaceId: string;
    designId: string;
    source: Exclude<BundleSource, { kind: "template" }>;
    note?: string;
    expectedLatestVersion?: number;
    createdBy: string;
  },
  deps: PublishDeps,
): Promise<Published> {
  const head = await activeDesign(input.workspaceId, input.designId);
  const draft = input.source.kind === "draft" ? await readDraft(head) : undefined;
  if (input.source.kind === "draft" && !draft)
    throw new PlatenError("VALIDATION_FAILED", {
      details: [{ field: "from", text: authoringText.noDraft }],
    });
  const raw = input.source.kind === "draft" ? draft!.raw : input.source.raw;
  const { strictBundle } = await bundleRules();
  const published = await publishDesign(
    {
      workspaceId: input.workspaceId,
      designId: input.designId,
      bundle: strictBundle(raw),
      ...(input.note && { note: input.note }),
      ...(input.expectedLatestVersion !== undefined && { expectedLatestVersion: input.expectedLatestVersion }),
      createdBy: input.createdBy,
    },
    deps,
  );
  if (draft && head.draftKey && (await clearDraftKey(input.workspaceId, input.designId, head.draftKey)))
    await deleteObject(head.draftKey).catch(() => undefined);
  return published;
}

export async function patchDesign(
  workspaceId: string,
  designId: string,
  fields: z.infer<typeof patchBody>,
  clock: Clock,
): Promise<DesignHead> {
  await activeDesign(workspaceId, designId);
  const updated = await updateDesignFields(workspaceId, designId, fields, clock.now().toISOString());
  if (!updated) throw new PlatenError("DESIGN_NOT_FOUND");
  return updated;
}

export async function archiveDesign(workspaceId: string, designId: string, clock: Clock): Promise<void> {
  await activeDesign(workspaceId, designId);
  if (!(await archiveDesignHead(workspaceId, designId, clock.now().toISOString())))
    throw new PlatenError("DESIGN_NOT_FOUND");
}
