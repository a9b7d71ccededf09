/**
 * Stands in for `proxy-agent` in the Chromium functions' bundles (function-bundle.ts
 * BUNDLE_STUBS). Only @puppeteer/browsers' download code constructs one, and a deployed
 * function never downloads a browser (Chromium comes unpacked from its layer); the real
 * module drags in a PAC-script JavaScript engine (QuickJS compiled to wasm, esprima, …),
 * ~1.1 MB that every cold start compiled for nothing.
 */
export class ProxyAgent {
  constructor() {
    throw new Error("proxy-agent is not bundled: the deployed functions never download a browser");
  }
}
