import { describe, expect, it } from "vitest";
import { siteStaticAssets } from "#shared/definitions/static-assets.ts";
import { studioPolicy } from "#shared/web/security-headers.ts";

describe("the editor's script policy", () => {
  it("allows the site's own scripts only, locally where the gateway serves them on the site's origin", () => {
    const csp = studioPolicy("n0nce");
    expect(csp).toContain("script-src 'self'; connect-src 'self'");
    expect(csp).toContain("style-src 'self' 'nonce-n0nce'");
  });

  it("adds the static-assets distribution's origin in AWS, and nothing else, to script-src only", () => {
    const csp = studioPolicy("n0nce", "https://d111111abcdef8.cloudfront.net");
    expect(csp).toContain("script-src 'self' https://d111111abcdef8.cloudfront.net; connect-src 'self'");
    expect(csp.match(/cloudfront/g)).toHaveLength(1);
  });

  it("names only files a build writes: a content hash, no path", () => {
    expect(siteStaticAssets.fileName.test("editor.ac104c96ad191783.js")).toBe(true);
    for (const name of [
      "editor.js",
      "../editor.ac104c96ad191783.js",
      "editor.AC104C96AD191783.js",
      "a/b.0123456789abcdef.js",
    ])
      expect(siteStaticAssets.fileName.test(name)).toBe(false);
  });
});
