/** The one member of `debug` (puppeteer-core's logger, no types shipped) the renderer touches. */
declare module "debug" {
  const debug: { inspectOpts?: Record<string, unknown> };
  export default debug;
}
