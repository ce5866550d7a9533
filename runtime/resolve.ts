import { posix } from "node:path";
import { MAX_JSON_DEPTH } from "../core/index.ts";
import type { DenoConfig, FunctionFiles } from "./source-files.ts";

/**
 * Module resolution inside an uploaded function, as Deno does it for a local folder:
 * relative specifiers, then the deno.json import map (`imports`, and `scopes` for the
 * importing file), then bare specifiers from vendored `node_modules/`. `npm:` maps to
 * `node_modules/<name>`; `jsr:` and `https:` must be mapped to uploaded files by the
 * import map (the CLI vendors them under `vendor/`, since servers may have no internet).
 * Nothing of Node (`node:`) exists inside the isolate.
 *
 * A vendored file is known by the URL that maps to it (`"https://deno.land/std/x.ts":
 * "./vendor/deno.land/std/x.ts"`): its relative imports resolve against that URL, as in
 * the import maps spec, and the result goes through the map again. Map targets that are
 * themselves specifiers (`jsr:…`, a redirect's final `https:` URL) are looked up again,
 * a few hops at most: the CLI writes such chains and the developer's entries stay as written.
 */

const EXTENSIONS = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".mts", ".json"];
const MAX_MAP_HOPS = 4;

export type Resolution = { path: string } | { error: string };

export function createResolver(files: FunctionFiles, config: DenoConfig) {
  const exists = (path: string) => Object.hasOwn(files, path);
  const urlOf = vendoredUrls(config.imports ?? {});

  const probe = (path: string): string | undefined => {
    const clean = posix.normalize(path).replace(/^\/+/, "");
    if (clean.startsWith("..")) return undefined;
    if (exists(clean)) return clean;
    for (const ext of EXTENSIONS) if (exists(clean + ext)) return clean + ext;
    for (const ext of EXTENSIONS) if (exists(`${clean}/index${ext}`)) return `${clean}/index${ext}`;
    return undefined;
  };

  const packageEntry = (dir: string): string | undefined => {
    const manifest = files[`${dir}/package.json`];
    if (manifest !== undefined) {
      try {
        const pkg = JSON.parse(manifest) as { exports?: unknown; module?: string; main?: string };
        const target = exportTarget(pkg.exports) ?? pkg.module ?? pkg.main;
        if (target) {
          const found = probe(posix.join(dir, target));
          if (found) return found;
        }
      } catch {
        return undefined;
      }
    }
    return probe(`${dir}/index`);
  };

  const fromNodeModules = (specifier: string): string | undefined => {
    const parts = specifier.split("/");
    const nameLength = specifier.startsWith("@") ? 2 : 1;
    const name = parts.slice(0, nameLength).join("/");
    const rest = parts.slice(nameLength).join("/");
    const dir = `node_modules/${name}`;
    return rest ? probe(`${dir}/${rest}`) : packageEntry(dir);
  };

  return function resolve(specifier: string, importer: string): Resolution {
    const base = urlOf.get(importer);
    const referrer = base === undefined ? [importer] : [importer, base];
    if (isRelative(specifier)) {
      if (base === undefined) {
        const found = probe(posix.join(posix.dirname(importer), specifier));
        return found ? { path: found } : { error: `Module not found: '${specifier}'` };
      }
      const absolute = new URL(specifier, base).href;
      const viaMap = resolveMapped(absolute, referrer);
      if ("path" in viaMap) return viaMap;
      // A vendor folder laid out by URL path also resolves by file path.
      const found = probe(posix.join(posix.dirname(importer), specifier));
      return found ? { path: found } : viaMap;
    }
    return resolveMapped(specifier, referrer);
  };

  function resolveMapped(specifier: string, referrer: string[]): Resolution {
    let current = specifier;
    for (let hop = 0; hop < MAX_MAP_HOPS; hop++) {
      const target = lookupImportMap(config, current, referrer);
      if (target === undefined || target === current) break;
      // Map targets are relative to deno.json, at the function's root.
      if (isRelative(target)) {
        const found = probe(target);
        return found
          ? { path: found }
          : { error: `Module not found: '${target}' (mapped from '${specifier}')` };
      }
      current = target;
    }
    return resolveBare(current);
  }

  function resolveBare(specifier: string): Resolution {
    if (specifier.startsWith("node:")) {
      return { error: `'${specifier}': Node built-ins do not exist in Tessera functions (use web APIs)` };
    }
    if (specifier.startsWith("npm:")) {
      // npm:name@version/sub or npm:@scope/name@version/sub: the version is the vendored one.
      const match = /^(@[^/@]+\/[^/@]+|[^/@]+)(?:@[^/]*)?(\/.*)?$/.exec(specifier.slice(4));
      const found = match ? fromNodeModules(match[1]! + (match[2] ?? "")) : undefined;
      return found ? { path: found } : notVendored(specifier);
    }
    if (/^(jsr:|https?:)/.test(specifier)) return notVendored(specifier);
    const found = fromNodeModules(specifier);
    return found ? { path: found } : { error: `Module not found: '${specifier}' (not in node_modules/)` };
  }
}

function notVendored(specifier: string): Resolution {
  return {
    error: `'${specifier}' is not vendored: deploy with \`tessera functions deploy\`, which fetches npm:, jsr: and https: imports into the upload`,
  };
}

function isRelative(specifier: string): boolean {
  return /^\.{0,2}\//.test(specifier);
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:/i;

/** The URL each vendored file was fetched from: the import map's URL keys whose target is a file. */
function vendoredUrls(imports: Record<string, string>): Map<string, string> {
  const urls = new Map<string, string>();
  for (const [key, target] of Object.entries(imports)) {
    if (/^https?:\/\//.test(key) && !key.endsWith("/") && isRelative(target)) {
      urls.set(posix.normalize(target).replace(/^\/+/, ""), key);
    }
  }
  return urls;
}

/**
 * The deno.json import map applied to one specifier: the `scopes` matching the referrer
 * (its file path, or for a vendored file also its URL) first, most specific first, then
 * `imports`. `referrer` lists the importer's path and, when it has one, its URL.
 *
 * @example
 *   lookupImportMap({ imports: { "@std/path": "jsr:@std/path@^1" } }, "@std/path/join", ["index.ts"])
 *   // → "jsr:@std/path@^1/join"
 */
export function lookupImportMap(
  config: Pick<DenoConfig, "imports" | "scopes">,
  specifier: string,
  referrer: string[],
): string | undefined {
  const scopes = Object.entries(config.scopes ?? {})
    .filter(([scope]) => referrer.some((from) => inScope(scope, from)))
    .sort(([a], [b]) => b.length - a.length);
  for (const [, map] of scopes) {
    const hit = applyMap(map, specifier);
    if (hit !== undefined) return hit;
  }
  return applyMap(config.imports ?? {}, specifier);
}

function inScope(scope: string, referrer: string): boolean {
  if (URL_LIKE.test(scope)) return URL_LIKE.test(referrer) && referrer.startsWith(scope);
  if (URL_LIKE.test(referrer)) return false;
  return `/${referrer}`.startsWith(`/${scope.replace(/^\.?\//, "")}`);
}

/**
 * An import map lookup: an exact key, else the longest key ending in `/` that prefixes it.
 * As in Deno, a key mapped to a `jsr:` or `npm:` package also covers its subpaths
 * (`"@std/path": "jsr:@std/path@^1"` maps `@std/path/join`).
 */
function applyMap(map: Record<string, string>, specifier: string): string | undefined {
  if (Object.hasOwn(map, specifier)) return map[specifier];
  let best: string | undefined;
  for (const [key, target] of Object.entries(map)) {
    const prefix = key.endsWith("/")
      ? key
      : /^(?:jsr|npm):/.test(target) && !/^\.{0,2}\/|^[a-z][a-z0-9+.-]*:\/\//i.test(key)
        ? `${key}/`
        : undefined;
    if (prefix && specifier.startsWith(prefix) && (!best || prefix.length > best.length)) best = key;
  }
  if (best === undefined) return undefined;
  const target = map[best]!;
  const rest = specifier.slice(best.endsWith("/") ? best.length : best.length + 1);
  return best.endsWith("/") ? target + rest : `${target}/${rest}`;
}

/**
 * The file a package's `exports` names for `import` of its root, when it is that simple. An
 * uploaded package.json is input: conditions nested past MAX_JSON_DEPTH name nothing.
 */
function exportTarget(exports: unknown, depth = 0): string | undefined {
  if (typeof exports === "string") return exports;
  if (!exports || typeof exports !== "object" || depth >= MAX_JSON_DEPTH) return undefined;
  const root = (exports as Record<string, unknown>)["."] ?? exports;
  if (typeof root === "string") return root;
  if (root && typeof root === "object") {
    const conditions = root as Record<string, unknown>;
    for (const condition of ["deno", "worker", "browser", "import", "default"]) {
      const value = conditions[condition];
      if (typeof value === "string") return value;
      const nested = exportTarget(value, depth + 1);
      if (nested) return nested;
    }
  }
  return undefined;
}
