import * as z from "zod";
import { type DesignJsonForm, toJsonForm } from "#shared/authoring/bundle-codec.ts";
import { authoringText } from "#shared/authoring/authoring-text.ts";
import type { BundleProblem } from "#shared/authoring/bundle-rules.ts";
import { readDraft, versionBundle, versionOf } from "#shared/authoring/design-lifecycle.ts";
import type { DesignHead } from "#shared/designs/design-store.ts";
import { fillBoth } from "#shared/i18n/texts.ts";
import { pageSetupOf } from "./page-fields.ts";

/**
 * What the editor changes of a design: the template, the style, the parameters, the sample data
 * and the page setup. The rest of the JSON form (label, description, lang, pdf, assets) is kept
 * from what the editor started from, so the script never sends the assets back and forth.
 */
export const editableFields = z
  .object({
    template: z.string(),
    style: z.string(),
    parameters: z.unknown(),
    sampleParams: z.unknown().optional(),
    /** einvoice.liquid, for a design that writes an e-invoice. */
    einvoiceMapping: z.string().optional(),
    page: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type EditableFields = z.infer<typeof editableFields>;

/** Where the editor starts: the draft when there is one, else the latest version. */
export async function editorBase(
  head: DesignHead,
): Promise<{ form: DesignJsonForm; draftUpdatedAt?: string; version: number }> {
  const draft = await readDraft(head);
  if (draft)
    return {
      form: toJsonForm({ ...draft.raw, manifest: draft.raw.manifest as Record<string, unknown> }),
      draftUpdatedAt: draft.updatedAt,
      version: head.latestVersion,
    };
  const version = await versionOf(head.workspaceId, head.id, head.latestVersion);
  return { form: toJsonForm(await versionBundle(version)), version: head.latestVersion };
}

/** The JSON form with the editor's fields put over the base. */
export function withEdits(base: DesignJsonForm, edits: EditableFields): Record<string, unknown> {
  const { sampleParams: _dropped, ...rest } = base;
  return {
    ...rest,
    template: edits.template,
    style: edits.style,
    parameters: edits.parameters,
    ...(edits.sampleParams !== undefined && { sampleParams: edits.sampleParams }),
    ...(edits.einvoiceMapping !== undefined && { einvoiceMapping: edits.einvoiceMapping }),
    // A custom width and height (no field of the form) stay as they were.
    ...(edits.page && { page: { ...(rest.page as object | undefined), ...cleanPage(edits.page) } }),
  };
}

/** Empty page fields mean "the default": they are left out rather than refused as lengths. */
function cleanPage(page: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(page)) {
    if (value === "" || value === undefined) continue;
    if (key === "margin" && typeof value === "object" && value !== null)
      out.margin = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== "" && v !== undefined));
    else out[key] = value;
  }
  return out;
}

/** The editor page's form (no script): the texts as typed; JSON that does not parse is a problem with its place. */
export function fieldsFromForm(form: URLSearchParams): { edits: EditableFields } | { problems: BundleProblem[] } {
  const problems: BundleProblem[] = [];
  const json = (name: "parameters" | "sampleParams") => {
    const text = form.get(name) ?? "";
    if (name === "sampleParams" && !text.trim()) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      problems.push({
        file: name,
        text: fillBoth(authoringText.formNotJson, { reason: (err as Error).message }),
      });
      return undefined;
    }
  };
  const parameters = json("parameters");
  const sampleParams = json("sampleParams");
  if (problems.length) return { problems };
  const value = (name: string) => form.get(name) ?? "";
  return {
    edits: {
      template: value("template"),
      style: value("style"),
      parameters,
      ...(sampleParams !== undefined && { sampleParams }),
      ...(form.has("einvoiceMapping") && { einvoiceMapping: value("einvoiceMapping") }),
      page: pageSetupOf(value),
    },
  };
}
