import type { Browser, Page } from "puppeteer-core";

/**
 * One extra page per browser, opened on first use and kept (a new page costs ~30 ms), and
 * opened again after it closed or failed to open: the page images' rasterizer, the
 * thumbnails' screen page.
 */
export function onePerBrowser<T extends { page: Page }>(open: (browser: Browser) => Promise<T>) {
  const opened = new WeakMap<Browser, Promise<T>>();
  return (browser: Browser): Promise<T> => {
    let ready = opened.get(browser);
    if (!ready) {
      ready = open(browser);
      opened.set(browser, ready);
      ready.then(
        ({ page }) => page.once("close", () => opened.delete(browser)),
        () => opened.delete(browser),
      );
    }
    return ready;
  };
}
