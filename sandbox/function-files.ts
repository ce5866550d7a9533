/**
 * The files a function was deployed with, held on the host beside its isolate: the guest's
 * `Deno.readFile`, `stat` and `readDir` (`guest/files.ts`) reach them through the synchronous
 * ops `file.read`, `file.stat` and `file.list`, so an isolate's heap holds only what its code
 * reads. They come from the deployment in the store, never from the host's disk: a path names
 * an entry of this map or nothing. Paths are absolute under the function's root `/`, already
 * normalized by the guest (`.` and `..` resolved); anything else is simply not found.
 */

/** Deno's (and POSIX's) errors a read can answer, by errno: ENOENT, ENOTDIR, EISDIR. */
export type FileErrno = 2 | 20 | 21;

/** `[isDirectory, size, modified ms]` as `file.stat` returns it. */
export type FileStat = [isDirectory: boolean, size: number, mtimeMs: number];

export interface FunctionFileSet {
  /** Total bytes of the files: counted with the isolate's heap in the pool's memory budget. */
  readonly bytes: number;
  read(path: string): Uint8Array | FileErrno;
  stat(path: string): FileStat | FileErrno;
  /** A directory's entries, `[name, isDirectory]`, sorted by name. */
  list(path: string): Array<[string, boolean]> | FileErrno;
}

/**
 * Indexes a deployment's files (`data/x.json` → bytes) as a read-only tree under `/`.
 *
 * @example
 *   const files = createFunctionFileSet([{ path: "data/x.json", content: bytes }], deployedAt);
 *   files.read("/data/x.json"); // bytes
 *   files.list("/"); // [["data", true]]
 */
export function createFunctionFileSet(
  entries: Iterable<{ path: string; content: Uint8Array }>,
  modifiedAt: Date,
): FunctionFileSet {
  const files = new Map<string, Uint8Array>();
  const dirs = new Map<string, Map<string, boolean>>([["/", new Map()]]);
  let bytes = 0;
  for (const { path, content } of entries) {
    const absolute = `/${path}`;
    // Bytes of our own (the store's Buffer may be a view on a larger pooled one).
    files.set(absolute, new Uint8Array(content));
    bytes += content.byteLength;
    addToParents(dirs, absolute);
  }
  const mtimeMs = modifiedAt.getTime();
  return {
    bytes,
    read(path) {
      const file = files.get(trimmed(path));
      if (file) return path.endsWith("/") ? 20 : file;
      return dirs.has(trimmed(path)) ? 21 : missing(path);
    },
    stat(path) {
      const file = files.get(trimmed(path));
      if (file) return path.endsWith("/") ? 20 : [false, file.byteLength, mtimeMs];
      return dirs.has(trimmed(path)) ? [true, 0, mtimeMs] : missing(path);
    },
    list(path) {
      const dir = dirs.get(trimmed(path));
      if (!dir) return files.has(trimmed(path)) ? 20 : missing(path);
      return [...dir].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    },
  };

  /** Below a file, nothing exists: `/data/x.json/y` is ENOTDIR, as on a disk. */
  function missing(path: string): FileErrno {
    for (let parent = parentOf(trimmed(path)); parent !== "/"; parent = parentOf(parent)) {
      if (files.has(parent)) return 20;
    }
    return 2;
  }
}

/** Names `path` in its directory, and each directory in its own, up to the root (or one already known). */
function addToParents(dirs: Map<string, Map<string, boolean>>, path: string): void {
  let isDirectory = false;
  for (let child = path; ; child = parentOf(child), isDirectory = true) {
    const parent = parentOf(child);
    const known = dirs.get(parent);
    const children = known ?? new Map<string, boolean>();
    if (!known) dirs.set(parent, children);
    children.set(child.slice(parent === "/" ? 1 : parent.length + 1), isDirectory);
    if (known) return;
  }
}

function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}

/** `/data/` names the directory `/data`; the root stays `/`. */
function trimmed(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") || "/" : path;
}
