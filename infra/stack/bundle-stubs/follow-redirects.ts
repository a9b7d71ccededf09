/**
 * Stands in for `follow-redirects` in the deployed bundles (function-bundle.ts BUNDLE_STUBS). Only
 * @sparticuz/chromium's download code (`downloadAndExtract`) uses it, and a deployed function never
 * downloads or inflates a browser: Chromium comes unpacked from its layer (CHROMIUM_PATH). With
 * `tar-fs` (its sibling stub) it took ~10 ms of every Chromium function's cold start for nothing.
 */
const refuse = (): never => {
  throw new Error("follow-redirects is not bundled: the deployed functions never download a browser");
};

export default { http: { get: refuse, request: refuse }, https: { get: refuse, request: refuse } };
