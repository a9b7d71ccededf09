import { siteStaticAssets } from "#shared/definitions/static-assets.ts";
import built from "./generated/scripts.json" with { type: "json" };

export type StudioScript = "editor";

/** The studio's bundled scripts by name: their content-hashed files (build-browser-scripts.ts). */
const manifest: Record<StudioScript, string> = built;

/**
 * Where the scripts are served: in AWS the static-assets distribution (`PLATEN_SITE_ASSETS_URL`,
 * infra/stack/static-assets.ts), locally the site's own origin (the gateway serves the files).
 * The site function never carries their bytes, only these names.
 */
const ASSETS_ORIGIN = (process.env.PLATEN_SITE_ASSETS_URL ?? "").replace(/\/+$/, "");

/** The origin the editor's CSP must allow scripts from besides its own, if any. */
export const scriptOrigin: string | undefined = ASSETS_ORIGIN || undefined;

/** The address of a script: its content hash is in the name, so it never changes under a cached copy. */
export const scriptPath = (name: StudioScript) => `${ASSETS_ORIGIN}${siteStaticAssets.urlPrefix}${manifest[name]}`;
