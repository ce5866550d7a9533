import { readdirSync, statSync, watch, type FSWatcher } from "node:fs";
import { join, relative } from "node:path";

/**
 * Watches a folder and every folder below it for changes, whatever way an editor saves: in place,
 * or by writing a temp file and renaming it over the original (an "atomic save"). Each directory
 * gets a watch of its own, not one recursive watch: a directory's watch sees a file replaced by a
 * rename as well as a file written, and outlives every file in it, where a watch that follows
 * files can lose one that is replaced and stay deaf from then on. Directories made later are
 * watched when they appear; removed ones are let go.
 *
 * @example
 *   const tree = watchTree(dir, (file) => reload(file), /node_modules|\.git/);
 *   tree.close();
 */
export interface WatchedTree {
  close(): void;
}

export function watchTree(root: string, onChange: (file: string) => void, ignored: RegExp): WatchedTree {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const isDirectory = (path: string) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  };
  const forget = (dir: string) => {
    for (const [path, watcher] of watchers) {
      if (path === dir || path.startsWith(`${dir}/`)) {
        watcher.close();
        watchers.delete(path);
      }
    }
  };
  const arm = (dir: string) => {
    if (closed || watchers.has(dir)) return;
    const rel = relative(root, dir);
    if (rel && ignored.test(rel)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        const path = name ? join(dir, name.toString()) : dir;
        const file = relative(root, path) || ".";
        if (ignored.test(file)) return;
        // A name that is now a directory is watched (a new folder, or one renamed in); one that is
        // gone is let go, with everything below it.
        if (path !== dir) {
          if (isDirectory(path)) armTree(path);
          else if (watchers.has(path)) forget(path);
        }
        onChange(file);
      });
    } catch {
      return; // removed between the listing and the watch
    }
    // The directory itself went away (or its watch failed): let it go; its parent reports the change.
    watcher.on("error", () => forget(dir));
    watchers.set(dir, watcher);
  };
  const armTree = (dir: string) => {
    arm(dir);
    let entries: string[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => join(dir, entry.name));
    } catch {
      return;
    }
    for (const child of entries) armTree(child);
  };

  armTree(root);
  return {
    close() {
      closed = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
