import { spawnChromiumAtInit } from "./early-chromium.ts";

/**
 * Imported FIRST by the Chromium handlers, for its side effect: with RENDER_LAUNCH_AT_INIT
 * the first browser process starts here, before the rest of the handler's modules (AWS
 * SDK, templating, PDF post-processing, …) are evaluated, so Chromium boots while they
 * load. Import order is evaluation order in Node and in the esbuild bundle alike, with one
 * exception: the deployed bundles are split (infra/stack/platen-function.ts), and the chunks
 * `index.mjs` shares with code it loads on demand (mostly the AWS SDK's core, ~0.5 MB)
 * are evaluated before it. The browser is still ready long before the first render.
 */
spawnChromiumAtInit();
