import { posix } from "node:path";
import type { DenoConfig, FunctionFiles } from "./source-files.ts";

/**
 * Module resolution inside an uploaded function, as Deno does it for a local folder:
 * relative specifiers, then the deno.json import map (`imports`, and `scopes` for the
 * importing file), then bare specifiers from vendored `node_modules/`. `npm:` maps to
 * `node_modules/<name>`; `jsr:` and `https:` must be mapped to uploaded files by the
 * import map (the CLI vendors them, since servers may have no internet). Nothing of
 * Node (`node:`) exists inside the isolate.
 */

const EXTENSIONS = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".mts", ".json"];

export type Resolution = { path: string } | { error: string };

export function createResolver(files: FunctionFiles, config: DenoConfig) {
  const exists = (path: string) => Object.hasOwn(files, path);

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

  const mapped = (specifier: string, importer: string): string | undefined => {
    for (const [scope, map] of Object.entries(config.scopes ?? {})) {
      if (`/${importer}`.startsWith(`/${scope.replace(/^\.?\//, "")}`)) {
        const hit = applyMap(map, specifier);
        if (hit !== undefined) return hit;
      }
    }
    return applyMap(config.imports ?? {}, specifier);
  };

  return function resolve(specifier: string, importer: string): Resolution {
    const relative = /^\.{0,2}\//.test(specifier);
    if (relative) {
      const found = probe(posix.join(posix.dirname(importer), specifier));
      return found ? { path: found } : { error: `Module not found: '${specifier}'` };
    }
    const target = mapped(specifier, importer);
    if (target !== undefined) {
      // Map targets are relative to deno.json, at the function's root.
      if (/^\.{0,2}\//.test(target)) {
        const found = probe(target);
        return found
          ? { path: found }
          : { error: `Module not found: '${target}' (mapped from '${specifier}')` };
      }
      return resolveBare(target);
    }
    return resolveBare(specifier);
  };

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

/** An import map lookup: an exact key, else the longest key ending in `/` that prefixes it. */
function applyMap(map: Record<string, string>, specifier: string): string | undefined {
  if (Object.hasOwn(map, specifier)) return map[specifier];
  let best: string | undefined;
  for (const key of Object.keys(map)) {
    if (key.endsWith("/") && specifier.startsWith(key) && (!best || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : map[best] + specifier.slice(best.length);
}

/** The file a package's `exports` names for `import` of its root, when it is that simple. */
function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === "string") return exports;
  if (!exports || typeof exports !== "object") return undefined;
  const root = (exports as Record<string, unknown>)["."] ?? exports;
  if (typeof root === "string") return root;
  if (root && typeof root === "object") {
    const conditions = root as Record<string, unknown>;
    for (const condition of ["deno", "worker", "browser", "import", "default"]) {
      const value = conditions[condition];
      if (typeof value === "string") return value;
      const nested = exportTarget(value);
      if (nested) return nested;
    }
  }
  return undefined;
}
