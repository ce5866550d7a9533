import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's node_modules, where npm: imports are vendored from. */
const NODE_MODULES = fileURLToPath(new URL("../../node_modules/", import.meta.url));
const SKIPPED = new Set(["node_modules", ".git"]);
/** Relative specifiers of static `import`/`export … from` and of `import("…")`. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.\.?\/[^"']+)["']/g;

/**
 * A function folder as the body of `POST /v1/functions`: every file of the folder,
 * plus each `npm:` package its deno.json maps, vendored from the repository's
 * node_modules as `node_modules/<name>/…` (its package.json and the modules its
 * entry reaches). What `tessera functions deploy DIR` will upload, for tests.
 *
 * @example
 *   const files = readFunctionFolder("examples/functions/hono-app");
 *   // { "index.ts": "…", "deno.json": "…", "node_modules/hono/package.json": "…", … }
 */
export function readFunctionFolder(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of walk(dir)) files[relative(dir, path).split("\\").join("/")] = readFileSync(path, "utf8");
  const config = files["deno.json"]
    ? (JSON.parse(files["deno.json"]) as { imports?: Record<string, string> })
    : {};
  for (const target of Object.values(config.imports ?? {})) {
    const name = /^npm:(@[^/@]+\/[^/@]+|[^/@]+)/.exec(target)?.[1];
    if (name) Object.assign(files, vendorPackage(name));
  }
  return files;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** package.json and every module reachable by relative imports from its ESM entry. */
function vendorPackage(name: string): Record<string, string> {
  const root = join(NODE_MODULES, name);
  const manifest = readFileSync(join(root, "package.json"), "utf8");
  const pkg = JSON.parse(manifest) as { exports?: unknown; module?: string; main?: string };
  const entry = esmEntry(pkg);
  const files: Record<string, string> = { [`node_modules/${name}/package.json`]: manifest };
  const pending = [join(root, entry)];
  while (pending.length > 0) {
    const path = pending.pop()!;
    const key = `node_modules/${name}/${relative(root, path).split("\\").join("/")}`;
    if (key in files) continue;
    const source = readFileSync(path, "utf8");
    files[key] = source;
    for (const match of source.matchAll(RELATIVE_IMPORT)) {
      const target = join(dirname(path), match[1]!);
      if (existsSync(target)) pending.push(target);
    }
  }
  return files;
}

function esmEntry(pkg: { exports?: unknown; module?: string; main?: string }): string {
  const root = (pkg.exports as Record<string, unknown> | undefined)?.["."];
  const fromExports = (root as Record<string, unknown> | undefined)?.import;
  const entry = typeof fromExports === "string" ? fromExports : (pkg.module ?? pkg.main ?? "index.js");
  return posix.normalize(entry);
}
