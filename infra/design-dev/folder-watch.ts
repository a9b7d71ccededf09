import { type FSWatcher, readdirSync, watch } from "node:fs";
import { join, relative } from "node:path";

/**
 * Calls `onChange` with the changed path (relative to `dir`) for every write, create, rename or
 * delete in the folder tree. One watch per folder rather than `{recursive: true}`: Node 20's
 * recursive watch on Linux follows files by inode and goes deaf to a file an editor saved by
 * writing a new file and renaming it over the old (vim, sed -i), while a folder's own watch
 * sees every entry by name. Folders are watched again after any entry appears or goes.
 */
export function watchFolder(dir: string, onChange: (path: string) => void): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const attach = (folder: string) => {
    if (closed || watchers.has(folder)) return;
    try {
      const watcher = watch(folder, (event, name) => {
        const path = relative(dir, join(folder, name ? String(name) : ""));
        if (event === "rename") rescan();
        onChange(path || "(folder)");
      });
      watcher.on("error", () => detach(folder));
      watchers.set(folder, watcher);
    } catch {
      // Gone between the listing and the watch: the next rescan settles it.
    }
  };
  const detach = (folder: string) => {
    watchers.get(folder)?.close();
    watchers.delete(folder);
  };
  const rescan = () => {
    const folders = new Set([dir, ...subfolders(dir)]);
    for (const folder of watchers.keys()) if (!folders.has(folder)) detach(folder);
    for (const folder of folders) attach(folder);
  };
  rescan();
  return {
    close() {
      closed = true;
      for (const folder of [...watchers.keys()]) detach(folder);
    },
  };
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}
