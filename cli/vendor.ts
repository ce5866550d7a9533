import { createHash } from "node:crypto";
import { lookupImportMap, type DenoConfig } from "../runtime/index.ts";
import { scanImports } from "./import-scan.ts";
import { createJsrResolver, type JsrVersionMeta } from "./jsr.ts";

/**
 * Vendoring of remote modules for `functions deploy`: every `https:` and `jsr:` module a
 * function imports, and what those import in turn, fetched on the developer's machine
 * (servers may have no internet) and uploaded under `vendor/<host>/<path>`, Deno's own
 * vendor layout, with an import map that sends each specifier to its file:
 *
 *   "jsr:@std/path@^1"                    → "https://jsr.io/@std/path/1.0.8/mod.ts"
 *   "https://deno.land/std/x.ts" (redirect) → "https://deno.land/std@0.224.0/x.ts"
 *   "https://jsr.io/@std/path/1.0.8/mod.ts" → "./vendor/jsr.io/@std/path/1.0.8/mod.ts"
 *
 * `runtime/resolve.ts` follows these chains and resolves a vendored file's relative
 * imports against its URL. `npm:` and bare imports of remote modules are returned for the
 * caller to vendor with the function's own (`npm-packages.ts`). Plain `http:` is fetched only
 * from the loopback host.
 */

export interface VendorOptions {
  /** The jsr registry: `TESSERA_JSR_URL`, default https://jsr.io. */
  jsrUrl: string;
  /** Most bytes of remote modules one upload may carry. */
  maxBytes: number;
  /** Most remote modules one upload may carry. */
  maxModules: number;
  /** The developer's import map: it applies to remote modules' imports too, as in Deno. */
  config: DenoConfig;
  fetch?: typeof fetch;
}

export interface Vendored {
  /** `vendor/<host>/<path>` → source. */
  files: Record<string, string>;
  /** Generated import map entries (specifier → URL or `./vendor/…`). */
  imports: Record<string, string>;
  /** `npm:` and bare specifiers remote modules import. */
  npm: string[];
  bytes: number;
}

export const DEFAULT_VENDOR_LIMITS = { maxBytes: 20 * 1024 * 1024, maxModules: 1500 } as const;
const CONCURRENT_FETCHES = 8;

type MediaType = "ts" | "tsx" | "js" | "jsx" | "json";

/** Extensions compile.ts loads as each media type; the first is the one added when needed. */
const EXTENSIONS: Record<MediaType, string[]> = {
  ts: [".ts", ".mts"],
  tsx: [".tsx"],
  js: [".js", ".mjs"],
  jsx: [".jsx"],
  json: [".json"],
};

/** Deno's content types (deno_media_type `from_content_type`); the extension decides the rest. */
const CONTENT_TYPES: Record<string, MediaType> = {
  "application/typescript": "ts",
  "text/typescript": "ts",
  "application/x-typescript": "ts",
  "video/vnd.dlna.mpeg-tts": "ts",
  "video/mp2t": "ts",
  "text/tsx": "tsx",
  "application/javascript": "js",
  "text/javascript": "js",
  "application/ecmascript": "js",
  "text/ecmascript": "js",
  "application/x-javascript": "js",
  "application/node": "js",
  "text/jsx": "jsx",
  "application/json": "json",
  "text/json": "json",
};
const BY_EXTENSION: Record<string, MediaType> = {
  ".ts": "ts",
  ".mts": "ts",
  ".cts": "ts",
  ".tsx": "tsx",
  ".js": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".jsx": "jsx",
  ".json": "json",
};

export class VendorError extends Error {}

/** Whether a specifier is one the CLI vendors (as opposed to npm:, node: or a file). */
export function isRemoteSpecifier(specifier: string): boolean {
  return /^(?:jsr:|https?:\/\/)/i.test(specifier);
}

/**
 * Fetches the module graph below `roots` (remote specifiers as the function imports them).
 *
 * @example
 *   const { files, imports } = await vendorRemote(["jsr:@std/path@^1"], {
 *     jsrUrl: "https://jsr.io", config: {}, ...DEFAULT_VENDOR_LIMITS,
 *   });
 */
export async function vendorRemote(roots: Iterable<string>, options: VendorOptions): Promise<Vendored> {
  const get = options.fetch ?? fetch;
  const out: Vendored = { files: {}, imports: {}, npm: [], bytes: 0 };
  const seen = new Set<string>();
  const packages = new Map<string, JsrVersionMeta>();
  const tasks: Promise<void>[] = [];
  const errors: unknown[] = [];
  const slots = createSlots(CONCURRENT_FETCHES);
  const registry = checkedUrl(options.jsrUrl, "TESSERA_JSR_URL");
  const resolveJsr = createJsrResolver(registry.href, (url) =>
    slots.run(async () => {
      const response = await fetchOk(get, url, "jsr metadata");
      return response.json();
    }),
  );

  /** Where a specifier leads: a module URL to fetch, or undefined when it is not remote. */
  const toUrl = async (specifier: string, importedBy: string): Promise<string | undefined> => {
    if (specifier.startsWith("jsr:")) {
      const resolved = await resolveJsr(specifier).catch((error: Error) => {
        throw new VendorError(`${specifier} (imported by ${importedBy}): ${error.message}`);
      });
      packages.set(resolved.packageUrl, resolved.meta);
      out.imports[specifier] = resolved.url;
      return resolved.url;
    }
    if (/^https?:\/\//i.test(specifier)) return checkedUrl(specifier, importedBy).href;
    return undefined;
  };

  const enqueue = (specifier: string, importedBy: string) => {
    const task = (async () => {
      if (errors.length > 0) return;
      const url = await toUrl(specifier, importedBy);
      if (url === undefined || seen.has(url)) return;
      if (seen.size >= options.maxModules) {
        throw new VendorError(
          `more than ${options.maxModules} remote modules to vendor (at ${url}, imported by ${importedBy})`,
        );
      }
      seen.add(url);
      await slots.run(() => visit(url, importedBy));
    })().catch((error: unknown) => void errors.push(error));
    tasks.push(task);
  };

  const visit = async (url: string, importedBy: string) => {
    if (errors.length > 0) return;
    const response = await fetchOk(get, url, `module imported by ${importedBy}`);
    const final = checkedUrl(response.url || url, importedBy).href;
    if (final !== url) {
      // Relative imports resolve against where the module really is (the final URL).
      out.imports[url] = final;
      if (seen.has(final)) return;
      seen.add(final);
    }
    const source = await response.text();
    verifyChecksum(packages, final, source);
    out.bytes += Buffer.byteLength(source);
    if (out.bytes > options.maxBytes) {
      throw new VendorError(
        `remote modules exceed ${options.maxBytes} bytes (at ${final}): vendor fewer, or raise the limit`,
      );
    }
    const media = mediaTypeOf(final, response.headers.get("content-type"));
    const path = vendorPath(final, media);
    out.files[path] = source;
    out.imports[final] = `./${path}`;
    if (media === "json") return;
    for (const specifier of await scanImports(source, path, options.config)) {
      const mapped = lookupImportMap(options.config, specifier, [final]) ?? specifier;
      if (/^\.{0,2}\//.test(mapped) && mapped !== specifier) continue; // mapped to the function's own files
      if (/^\.{0,2}\//.test(specifier)) enqueue(new URL(specifier, final).href, final);
      else if (isRemoteSpecifier(mapped)) enqueue(mapped, final);
      else if (!mapped.startsWith("node:") && !/^[a-z][a-z0-9+.-]*:\/\//i.test(mapped)) out.npm.push(mapped);
    }
  };

  for (const root of roots) enqueue(root, "the function");
  for (let i = 0; i < tasks.length; i++) await tasks[i];
  if (errors.length > 0) throw errors[0];
  return out;
}

/** Only https:, and http: on the loopback host (local registries and tests). */
function checkedUrl(text: string, context: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new VendorError(`'${text}' (${context}) is not a URL`);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol === "https:" || (url.protocol === "http:" && loopback)) return url;
  throw new VendorError(`${text} (${context}): only https: URLs are vendored (http: only from localhost)`);
}

async function fetchOk(get: typeof fetch, url: string, what: string): Promise<Response> {
  let response: Response;
  try {
    response = await get(url, { redirect: "follow", headers: { accept: "*/*" } });
  } catch (error) {
    throw new VendorError(`could not fetch ${url} (${what}): ${(error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new VendorError(`could not fetch ${url} (${what}): ${response.status} ${response.statusText}`);
  }
  return response;
}

/** jsr's `<version>_meta.json` lists each file's sha256: a module that differs is refused. */
function verifyChecksum(packages: Map<string, JsrVersionMeta>, url: string, source: string): void {
  for (const [packageUrl, meta] of packages) {
    if (!url.startsWith(packageUrl)) continue;
    const expected = meta.manifest?.[`/${url.slice(packageUrl.length)}`]?.checksum;
    if (!expected) return;
    const actual = `sha256-${createHash("sha256").update(source).digest("hex")}`;
    if (actual !== expected) throw new VendorError(`${url} does not match its jsr checksum (${expected})`);
    return;
  }
}

/** The content type wins over the extension, as in Deno; `text/plain` and friends defer to it. */
export function mediaTypeOf(url: string, contentType: string | null): MediaType {
  const pathname = new URL(url).pathname;
  const extension = /\.[a-z]+$/i.exec(pathname)?.[0]?.toLowerCase() ?? "";
  const declared = CONTENT_TYPES[(contentType ?? "").split(";")[0]!.trim().toLowerCase()];
  if (declared === "ts" && extension === ".tsx") return "tsx";
  if (declared === "js" && extension === ".jsx") return "jsx";
  const media = declared ?? BY_EXTENSION[extension];
  if (!media) {
    throw new VendorError(
      `${url}: cannot vendor content-type '${contentType ?? "none"}' (TypeScript, JavaScript or JSON only)`,
    );
  }
  return media;
}

/**
 * `https://deno.land/std@0.224.0/path/mod.ts` → `vendor/deno.land/std@0.224.0/path/mod.ts`;
 * a port joins the host with `_`; characters an upload path may not hold become `_`, and a
 * query string or such a change adds a short hash of the URL, so two URLs never share a file.
 * The extension is the media type's, added when the URL lacks it, so the server's compiler
 * picks the right loader.
 */
export function vendorPath(url: string, media: MediaType): string {
  const parsed = new URL(url);
  const host = (parsed.port ? `${parsed.hostname}_${parsed.port}` : parsed.hostname).replace(
    /[^A-Za-z0-9.-]/g,
    "_",
  );
  const segments = parsed.pathname.split("/").slice(1);
  if (segments.length === 0 || segments.at(-1) === "") segments.splice(-1, 1, "index");
  let changed = parsed.search !== "";
  const clean = segments.map((segment) => {
    const safe = segment.replace(/[^A-Za-z0-9@._+-]/g, "_").replace(/^\.{1,2}$/, "_");
    if (safe !== segment) changed = true;
    return safe;
  });
  let last = clean.pop()!;
  const extension = /\.[a-z]+$/i.exec(last)?.[0]?.toLowerCase() ?? "";
  const keep = EXTENSIONS[media].includes(extension);
  if (changed) {
    const hash = createHash("sha256").update(url).digest("hex").slice(0, 8);
    last = keep ? `${last.slice(0, -extension.length)}_${hash}${extension}` : `${last}_${hash}`;
  }
  if (!keep) last += EXTENSIONS[media][0];
  return ["vendor", host, ...clean, last].join("/");
}

function createSlots(size: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      while (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
      active++;
      try {
        return await work();
      } finally {
        active--;
        waiting.shift()?.();
      }
    },
  };
}
