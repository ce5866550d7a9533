import { hostSync } from "./bridge.ts";
import { cwd, errors } from "./deno.ts";
import { TextDecoder } from "./encoding.ts";
import { URL } from "./url.ts";

/**
 * `Deno.readFile` and friends over the files the function was deployed with (Deno Deploy's
 * and Supabase's "static files"): a read-only tree under the function's root `/`, which is
 * also `Deno.cwd()` and where `import.meta.url` points (`file:///index.ts`). The host holds
 * the files (sandbox/function-files.ts) and answers the synchronous ops `file.read`,
 * `file.stat` and `file.list`; only what the code reads is copied into the isolate. Paths
 * are resolved here as a POSIX system would (`..` above `/` stays at `/`), so
 * `../../etc/passwd` is `/etc/passwd` of the deployment: not found. Errors are Deno's:
 * the class, the message (`No such file or directory (os error 2): readfile '/x'`, the path
 * as the caller wrote it) and `code`.
 */

type PathLike = string | URL;

/** An errno from the host: ENOENT, ENOTDIR, EISDIR. */
type Errno = 2 | 20 | 21;
const ERRNO: Record<
  Errno,
  { name: "NotFound" | "NotADirectory" | "IsADirectory"; text: string; code: string }
> = {
  2: { name: "NotFound", text: "No such file or directory", code: "ENOENT" },
  20: { name: "NotADirectory", text: "Not a directory", code: "ENOTDIR" },
  21: { name: "IsADirectory", text: "Is a directory", code: "EISDIR" },
};

/** Deno's `FileInfo`; what a deployment does not have (owners, inodes, access times) is null. */
export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  size: number;
  mtime: Date | null;
  atime: Date | null;
  birthtime: Date | null;
  ctime: Date | null;
  dev: number;
  ino: number | null;
  mode: number | null;
  nlink: number | null;
  uid: number | null;
  gid: number | null;
  rdev: number | null;
  blksize: number | null;
  blocks: number | null;
  isBlockDevice: boolean;
  isCharDevice: boolean;
  isFifo: boolean;
  isSocket: boolean;
}

export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

/** The absolute path a `string | URL` names, and the path as Deno shows it in errors. */
function resolve(path: unknown): { absolute: string; shown: string } {
  let shown: string;
  if (path instanceof URL) {
    if (path.protocol !== "file:") throw new TypeError("Must be a file URL");
    shown = decodePath(path.pathname);
  } else {
    // As Deno: a string is a path, even one that looks like a URL.
    shown = typeof path === "string" ? path : "";
  }
  const joined = shown.startsWith("/") ? shown : `${cwd()}${shown}`;
  const segments: string[] = [];
  for (const segment of joined.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  // A trailing slash asks for a directory: the host answers ENOTDIR for a file.
  const trailing = segments.length > 0 && /\/\.?$/.test(joined) ? "/" : "";
  return { absolute: `/${segments.join("/")}${trailing}`, shown };
}

function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

function fail(errno: Errno, op: string, shown: string): never {
  const { name, text, code } = ERRNO[errno];
  const error = new (errors()[name])(`${text} (os error ${errno}): ${op} '${shown}'`);
  Object.defineProperty(error, "code", { value: code, writable: true, configurable: true });
  throw error;
}

function fileOp(op: "read" | "stat" | "list", label: string, path: unknown): unknown {
  const { absolute, shown } = resolve(path);
  // An empty path names nothing (as in Deno), not the root.
  if (shown === "") fail(2, label, shown);
  const answer = hostSync(`file.${op}`, 0, absolute);
  if (typeof answer === "number") fail(answer as Errno, label, shown);
  return answer;
}

export function readFileSync(path: PathLike): Uint8Array {
  return fileOp("read", "readfile", path) as Uint8Array;
}

export function readTextFileSync(path: PathLike): string {
  return new TextDecoder().decode(readFileSync(path));
}

function statWith(label: string, path: unknown): FileInfo {
  const [isDirectory, size, mtimeMs] = fileOp("stat", label, path) as [boolean, number, number];
  return {
    isFile: !isDirectory,
    isDirectory,
    isSymlink: false,
    size,
    // The deployment's time: its files were written then, and never since.
    mtime: mtimeMs > 0 ? new Date(mtimeMs) : null,
    atime: null,
    birthtime: mtimeMs > 0 ? new Date(mtimeMs) : null,
    ctime: null,
    dev: 0,
    ino: null,
    mode: null,
    nlink: null,
    uid: null,
    gid: null,
    rdev: null,
    blksize: null,
    blocks: null,
    isBlockDevice: false,
    isCharDevice: false,
    isFifo: false,
    isSocket: false,
  };
}

export const statSync = (path: PathLike): FileInfo => statWith("stat", path);
/** There are no symbolic links among a deployment's files: `lstat` is `stat`. */
export const lstatSync = (path: PathLike): FileInfo => statWith("lstat", path);

export function realPathSync(path: PathLike): string {
  const { absolute } = resolve(path);
  statWith("realpath", path);
  return absolute.length > 1 ? absolute.replace(/\/$/, "") : absolute;
}

export function readDirSync(path: PathLike): IterableIterator<DirEntry> {
  const entries = fileOp("list", "readdir", path) as Array<[string, boolean]>;
  return entries
    .map(([name, isDirectory]) => ({ name, isFile: !isDirectory, isDirectory, isSymlink: false }))
    [Symbol.iterator]();
}

/** As Deno's: the listing is taken at the call, and its error (if any) comes out of the iteration. */
export function readDir(path: PathLike): AsyncIterable<DirEntry> {
  let listed: DirEntry[] | undefined;
  let failure: unknown;
  try {
    listed = [...readDirSync(path)];
  } catch (error) {
    failure = error;
  }
  return {
    async *[Symbol.asyncIterator]() {
      if (!listed) throw failure;
      yield* listed;
    },
  };
}

/**
 * Writes: the deployment's files are immutable and there is nowhere else to write. Deno 2
 * refuses an operation it has no permission for with `NotCapable` (Deno Deploy's read-only
 * file system does the same with `PermissionDenied`, its Deno 1 name), so code written for
 * `deno run --allow-read` meets the same error here. Defined rather than left undefined, so
 * the failure says why instead of "is not a function".
 */
function readOnly(path: unknown): never {
  const shown = path instanceof URL ? decodePath(path.pathname) : String(path);
  throw new (errors().NotCapable)(
    `Requires write access to "${shown}": an edge function's files are read-only (the files it was deployed with)`,
  );
}

const promised =
  <A extends unknown[], R>(sync: (...args: A) => R) =>
  async (...args: A): Promise<R> =>
    sync(...args);

const refuseSync = (path: unknown): never => readOnly(path);
const refuse = async (path: unknown): Promise<never> => readOnly(path);

/** The file system members of `Deno` (serve.ts puts them on it). */
export const fileSystem = {
  readFile: promised(readFileSync),
  readFileSync,
  readTextFile: promised(readTextFileSync),
  readTextFileSync,
  stat: promised(statSync),
  statSync,
  lstat: promised(lstatSync),
  lstatSync,
  realPath: promised(realPathSync),
  realPathSync,
  readDir,
  readDirSync,
  writeFile: refuse,
  writeFileSync: refuseSync,
  writeTextFile: refuse,
  writeTextFileSync: refuseSync,
  mkdir: refuse,
  mkdirSync: refuseSync,
  remove: refuse,
  removeSync: refuseSync,
  rename: refuse,
  renameSync: refuseSync,
  copyFile: (_from: unknown, to: unknown) => refuse(to),
  copyFileSync: (_from: unknown, to: unknown) => refuseSync(to),
};
