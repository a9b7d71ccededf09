import type { CDPSession, HTTPRequest, Page } from "puppeteer-core";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { DESIGN_ORIGIN } from "./template.ts";

type Assets = DesignBundle["assets"];

/** A page locked down for untrusted templates, answering asset requests from memory. */
export interface GuardedPage {
  readonly page: Page;
  /** A DevTools session on the page, for calls puppeteer wraps in more round trips than needed. */
  readonly cdp: CDPSession;
  /** Assets of the bundle being rendered; the page is reused, so this changes per render. */
  setAssets(assets: Assets): void;
}

/**
 * Locks a page down: no JavaScript in any frame, no service workers, and every request
 * intercepted. Only `data:` URLs and the current bundle's assets on DESIGN_ORIGIN load;
 * http(s) anywhere else, file:, ws:, chrome: and main-frame navigations are aborted.
 * Documents are laid out for print media from the start, so what is checked before printing
 * (document-limits.ts counts forced breaks) sees the style rules the print applies, `@media print`
 * ones too, and a thumbnail shows the printed layout.
 * `session`: the page's own DevTools session, if the caller is already opening it.
 */
export async function guardPage(page: Page, session?: Promise<CDPSession>): Promise<GuardedPage> {
  let assets: Assets = {};
  // Side by side: each is a DevTools round trip, and the page loads nothing before all are done.
  const [cdp] = await Promise.all([
    session ?? page.createCDPSession(),
    page.setJavaScriptEnabled(false),
    page.setBypassServiceWorker(true),
    page.setRequestInterception(true),
    page.emulateMediaType("print"),
  ]);
  page.on("request", (request) => {
    // Another listener may have answered already (none today, but it is the contract).
    if (request.isInterceptResolutionHandled()) return;
    void answerRequest(page, request, assets).catch(() => {
      // The request died with its page (time-out kill, crash): nothing left to answer.
    });
  });
  return {
    page,
    cdp,
    setAssets(next) {
      assets = next;
    },
  };
}

async function answerRequest(page: Page, request: HTTPRequest, assets: Assets): Promise<void> {
  const url = request.url();
  if (url.startsWith("data:")) return request.continue();
  // setContent never navigates, so a main-frame navigation is a meta refresh trying to
  // leave the document. 204 makes Chromium stay put; an abort would commit an error page.
  if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
    return request.respond({ status: 204, body: "" });
  }
  const asset = findAsset(url, assets);
  if (!asset) return request.abort("blockedbyclient");
  return request.respond({
    status: 200,
    contentType: asset.contentType,
    headers: { "cache-control": "no-store" },
    body: asset.body,
  });
}

/** Maps `https://design.platen.invalid/assets/logo.png` to the bundle key `assets/logo.png`. */
export function findAsset(url: string, assets: Assets): Assets[string] | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.origin !== DESIGN_ORIGIN) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname.slice(1));
  } catch {
    return undefined;
  }
  // Own keys only: a path like "constructor" must not reach Object.prototype.
  return Object.hasOwn(assets, path) ? assets[path] : undefined;
}
