import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BundleProblem } from "#shared/authoring/bundle-rules.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { bundlePreviewSource, renderPreviewPages } from "#shared/authoring/preview.ts";
import type { Renderer } from "#shared/render/renderer.ts";
import { watchFolder } from "./folder-watch.ts";
import { problemsOf } from "./render-problems.ts";

/** Pages drawn as images per render; a longer document is read in its PDF. */
export const DEV_PAGES = 5;

/**
 * What editors keep beside the files they edit (vim's `.x.swp` and `4913`, emacs' `x~` and
 * `#x#`, `.DS_Store`): never part of the design, so neither a reason to render nor a problem.
 */
export const isScratchFile = (path: string): boolean =>
  path.split("/").some((part) => /^[.#]|~$|\.swp$|^4913$/.test(part));

/**
 * The changed paths worth naming in the "rendering vN (…)" line: those still in the folder. An
 * editor that saves by writing a temporary file and renaming it over the original (`sed -i`'s
 * `sedXXXXXX`, some editors' backups) leaves a name that is gone by then; when every changed path
 * is gone (a file really deleted), all of them are named.
 */
export function changedToName(changed: string[], exists: (path: string) => boolean): string[] {
  const present = changed.filter((path) => path === START || exists(path));
  return present.length ? present : changed;
}

const START = "(start)";

/** One finished render of the folder: its pages, or what stopped it. */
export type DevRender = { version: number; at: string; ms: number } & (
  | { ok: true; pageCount: number; pages: Buffer[]; pdf: Buffer }
  | { ok: false; problems: BundleProblem[] }
);

export interface RenderLoopOptions {
  dir: string;
  renderer: Renderer;
  /** Quiet time after the last change of a burst (an editor's save is several writes). */
  debounceMs: number;
  /** A render starts (`version` it will publish as) or one is finished. */
  onRendering(version: number, changed: string[]): void;
  onRender(render: DevRender): void;
  /** A render was dropped because the folder changed while it ran. */
  onSuperseded(version: number): void;
}

/**
 * Watches a bundle folder and renders it on start and after every burst of changes: the
 * studio preview's engine (load and check the folder, the marked PDF, page images). Changes
 * during a render supersede it: its remaining steps are skipped and only the newest is shown.
 */
export function startRenderLoop(options: RenderLoopOptions): { close(): Promise<void> } {
  let version = 0;
  /** Files changed since the last render started; any at all supersedes a render under way. */
  const changes = new Set<string>([START]);
  let due = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let closed = false;

  const drain = async () => {
    while (!closed && due) {
      due = false;
      const why = changedToName([...changes], (path) => existsSync(join(options.dir, path)));
      changes.clear();
      options.onRendering(++version, why);
      const render = await renderFolder(options, version, () => closed || changes.size > 0);
      if (closed) break;
      if (changes.size) options.onSuperseded(render.version);
      else options.onRender(render);
    }
    running = undefined;
  };
  const kick = () => {
    running ??= drain();
  };
  const watcher = watchFolder(options.dir, (path) => {
    if (isScratchFile(path)) return;
    changes.add(path);
    clearTimeout(timer);
    timer = setTimeout(() => {
      due = true;
      kick();
    }, options.debounceMs);
  });
  kick();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
      await running;
    },
  };
}

/** Reads, checks and renders the folder once; `superseded` says a newer change arrived meanwhile. */
async function renderFolder(
  options: RenderLoopOptions,
  version: number,
  superseded: () => boolean,
): Promise<DevRender> {
  const started = performance.now();
  const done = () => ({ version, at: new Date().toISOString(), ms: Math.round(performance.now() - started) });
  try {
    const bundle = await loadBundleFromDir(options.dir, { ignore: isScratchFile });
    // A key per render: the compiled-template cache must never serve the previous save.
    const source = bundlePreviewSource(bundle, `design-dev/${version}`);
    const rendered = await renderPreviewPages(options.renderer, source, { maxPages: DEV_PAGES, superseded });
    return { ...done(), ok: true, ...rendered };
  } catch (err) {
    return { ...done(), ok: false, problems: problemsOf(err) };
  }
}
