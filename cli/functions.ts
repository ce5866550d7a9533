import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import type { Config } from "../core/index.ts";
import { openDataDir } from "../store/index.ts";

/**
 * `tessera functions …`: a developer's commands, over HTTP to a Tessera server with an
 * API key, like `supabase functions` or `wrangler`. The server is `--url` or
 * TESSERA_URL, else the one serving the embedded data dir, else http://127.0.0.1:8787;
 * the key is `--key` or TESSERA_API_KEY.
 */

export interface FunctionsClientOptions {
  url?: string | undefined;
  key?: string | undefined;
  config: Config;
  env: Record<string, string | undefined>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export function functionsClient(options: FunctionsClientOptions) {
  const base =
    options.url ??
    options.env.TESSERA_URL ??
    (!options.config.databaseUrl ? openDataDir(options.config.dataDir).runningServer()?.url : undefined) ??
    `http://127.0.0.1:${options.config.port}`;
  const key = options.key ?? options.env.TESSERA_API_KEY;
  const call = async (
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) => {
    if (!key) throw new Error("no API key: pass --key or set TESSERA_API_KEY");
    const response = await fetch(new URL(path, base), {
      method,
      headers: { authorization: `Bearer ${key}`, ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const json = (method: string, path: string, body?: unknown) =>
    call(
      method,
      path,
      body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } },
    );
  return { base, call, json };
}

/** Files a deploy never uploads. */
const SKIPPED = new Set([".git", ".DS_Store", ".env", "node_modules", ".vscode", ".idea"]);
/** Of a vendored package, only what can be imported. */
const PACKAGE_FILE = /\.(?:m?js|cjs|json|ts|mts|tsx|jsx)$/;
const NOT_IMPORTABLE = /(?:\.d\.[mc]?ts|\.map|\.test\.[jt]s)$/;

/**
 * The upload for `functions deploy DIR`: the folder's sources (no dot-env, no VCS), plus
 * every npm package the function imports (`npm:` specifiers, deno.json mappings to
 * `npm:`, bare imports), with their dependencies, copied from the nearest
 * `node_modules` — the server may have no internet, so the CLI carries them.
 */
export function collectUpload(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  walk(dir, dir, files);
  const wanted = new Set<string>();
  const imports = readImportMap(files);
  for (const [path, source] of Object.entries(files)) {
    if (!/\.(?:m?[jt]sx?)$/.test(path)) continue;
    for (const specifier of importSpecifiers(source)) {
      const mapped = imports[specifier] ?? prefixMapped(imports, specifier) ?? specifier;
      const name = npmPackageName(mapped);
      if (name) wanted.add(name);
    }
  }
  const vendored = new Set<string>();
  const queue = [...wanted];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (vendored.has(name)) continue;
    vendored.add(name);
    const packageDir = findPackage(dir, name);
    if (!packageDir)
      throw new Error(
        `npm package '${name}' is imported but not installed: run npm install ${name} in ${dir}`,
      );
    walkPackage(packageDir, `node_modules/${name}`, files);
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    queue.push(...Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }));
  }
  return files;
}

function walk(root: string, dir: string, files: Record<string, string>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.startsWith(".env")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(root, full, files);
    else if (entry.isFile())
      files[relative(root, full).split(sep).join(posix.sep)] = readFileSync(full, "utf8");
  }
}

function walkPackage(dir: string, prefix: string, files: Record<string, string>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walkPackage(full, `${prefix}/${entry.name}`, files);
    else if (
      PACKAGE_FILE.test(entry.name) &&
      !NOT_IMPORTABLE.test(entry.name) &&
      statSync(full).size < 5_000_000
    ) {
      files[`${prefix}/${entry.name}`] = readFileSync(full, "utf8");
    }
  }
}

function readImportMap(files: Record<string, string>): Record<string, string> {
  const text = files["deno.json"] ?? files["deno.jsonc"];
  if (!text) return {};
  try {
    return (
      (JSON.parse(text.replace(/^\s*\/\/.*$/gm, "")) as { imports?: Record<string, string> }).imports ?? {}
    );
  } catch {
    return {};
  }
}

function prefixMapped(imports: Record<string, string>, specifier: string): string | undefined {
  for (const [from, to] of Object.entries(imports)) {
    if (from.endsWith("/") && specifier.startsWith(from)) return to + specifier.slice(from.length);
  }
  return undefined;
}

/** Static and dynamic import/export specifiers (a scan, not a parse: enough to find packages). */
function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bexport\s*\*\s*from\s*)["']([^"'\n]+)["']/g;
  for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** `npm:hono@4/jsx` → `hono`; a bare `@scope/pkg/sub` → `@scope/pkg`; relative, URL and node: → undefined. */
export function npmPackageName(specifier: string): string | undefined {
  let rest = specifier;
  if (rest.startsWith("npm:")) rest = rest.slice(4).replace(/^\//, "");
  else if (/^(?:\.|\/|[a-z][a-z0-9+.-]*:)/i.test(rest)) return undefined;
  const parts = rest.split("/");
  const name = rest.startsWith("@") ? `${parts[0]}/${parts[1] ?? ""}` : parts[0]!;
  const bare = name.replace(/(?<=.)@[^/]*$/, "");
  return /^(?:@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/i.test(bare) ? bare : undefined;
}

function findPackage(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
