import { spawnChromiumAtInit } from "./early-chromium.ts";

/**
 * Imported FIRST by the Chromium handlers, for its side effect: with RENDER_LAUNCH_AT_INIT
 * the first browser process starts here, before the rest of the handler's modules (AWS
 * SDK, templating, PDF post-processing, …) are evaluated, so Chromium boots while they
 * load. Import order is evaluation order in Node and in the esbuild bundle alike.
 */
spawnChromiumAtInit();
