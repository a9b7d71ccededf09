/**
 * Files the site's pages load that no function serves: the design studio's browser scripts,
 * bundled by `npm run build:studio` (functions/site/studio/build-browser-scripts.ts) into `dir`
 * under names carrying their content hash, so a new build is a new address and a copy may be
 * kept forever. In AWS a private bucket behind CloudFront serves them (infra/stack/static-assets.ts);
 * locally the gateway does, on the site's origin (infra/local/static-files.ts). The site function
 * only reads the small manifest beside `dir` to name them, never their bytes.
 */
export const siteStaticAssets = {
  /** Where a browser asks for them, on the site's origin locally and on the assets distribution in AWS. */
  urlPrefix: "/assets/js/",
  /** The generated folder (git-ignored), relative to the repository root. */
  dir: "functions/site/studio/generated/js",
  /** The names a build writes: `<name>.<16 hex digits of sha256>.js`. */
  fileName: /^[a-z][a-z0-9-]*\.[0-9a-f]{16}\.js$/,
  contentType: "text/javascript; charset=utf-8",
  cacheControl: "public, max-age=31536000, immutable",
} as const;
