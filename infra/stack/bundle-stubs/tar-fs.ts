/**
 * Stands in for `tar-fs` in the deployed bundles (function-bundle.ts BUNDLE_STUBS): only
 * @sparticuz/chromium's inflate and download code extracts archives, and a deployed function runs the
 * Chromium its layer holds unpacked (CHROMIUM_PATH). The real module brought streamx, tar-stream and
 * their helpers (~50 KB) into every Chromium function's cold start.
 */
export function extract(): never {
  throw new Error("tar-fs is not bundled: the deployed functions run the unpacked Chromium of their layer");
}
