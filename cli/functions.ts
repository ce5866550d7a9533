import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import {
  DenoConfigSchema,
  isLeftOutOfDeploy,
  lookupImportMap,
  stripJsonComments,
  type DenoConfig,
  type UploadedFiles,
} from "../runtime/index.ts";
import { isScannable, scanImports } from "./import-scan.ts";
import { DEFAULT_VENDOR_LIMITS, isRemoteSpecifier, vendorRemote } from "./vendor.ts";

/** Of a vendored package, only what can be imported. */
const PACKAGE_FILE = /\.(?:m?js|cjs|json|ts|mts|tsx|jsx)$/;
const NOT_IMPORTABLE = /(?:\.d\.[mc]?ts|\.map|\.test\.[jt]s)$/;

export interface CollectOptions {
  /** The jsr registry (`TESSERA_JSR_URL`); default https://jsr.io. */
  jsrUrl?: string | undefined;
  /** Caps on the remote modules vendored, bytes and count. */
  maxVendorBytes?: number | undefined;
  maxVendorModules?: number | undefined;
  fetch?: typeof fetch;
}

/**
 * The upload for `functions deploy DIR`: the folder's sources (no dot-env, no VCS), plus
 * what the server cannot fetch itself, having perhaps no internet: every `https:` and
 * `jsr:` module the function imports (in its sources or as deno.json import map values),
 * with their own imports, under `vendor/` with generated import map entries merged into
 * the uploaded deno.json (the developer's entries win); and every npm package (`npm:`,
 * deno.json mappings to `npm:`, bare imports, and those of vendored modules), with its
 * dependencies, copied from the nearest `node_modules`.
 *
 * @example
 *   const files = await collectUpload("./functions/hello", { jsrUrl: env.TESSERA_JSR_URL });
 */
export async function collectUpload(dir: string, options: CollectOptions = {}): Promise<UploadedFiles> {
  const files: UploadedFiles = {};
  walk(dir, dir, files);
  const configFile = CONFIG_FILES.find((name) => name in files);
  const configText = configFile ? files[configFile] : undefined;
  const parsedConfig = readConfig(typeof configText === "string" ? configText : undefined);
  const config = parsedConfig ?? {};
  const npm = new Set<string>();
  const remote = new Set<string>();
  const classify = (specifier: string) => {
    if (isRemoteSpecifier(specifier)) remote.add(specifier);
    else npm.add(specifier);
  };
  for (const [path, source] of Object.entries(files)) {
    if (typeof source !== "string" || !isScannable(path)) continue;
    for (const specifier of await scanImports(source, path, config)) {
      const mapped = lookupImportMap(config, specifier, [path]) ?? specifier;
      if (!/^\.{0,2}\//.test(mapped)) classify(mapped);
    }
  }
  for (const map of [config.imports ?? {}, ...Object.values(config.scopes ?? {})]) {
    for (const target of Object.values(map))
      if (isRemoteSpecifier(target) && !target.endsWith("/")) remote.add(target);
  }
  if (remote.size > 0) {
    if (!parsedConfig)
      throw new Error(`${configFile} is not a valid deno.json: fix it to vendor remote imports`);
    const vendored = await vendorRemote(remote, {
      jsrUrl: options.jsrUrl ?? "https://jsr.io",
      maxBytes: options.maxVendorBytes ?? DEFAULT_VENDOR_LIMITS.maxBytes,
      maxModules: options.maxVendorModules ?? DEFAULT_VENDOR_LIMITS.maxModules,
      config,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    Object.assign(files, vendored.files);
    vendored.npm.forEach((specifier) => npm.add(specifier));
    // The developer's own entries win; generated ones only add what was missing.
    files[configFile ?? "deno.json"] = JSON.stringify(
      { ...config, imports: { ...vendored.imports, ...config.imports } },
      null,
      2,
    );
  }
  copyPackages(dir, npm, files);
  return files;
}

/** Copies each npm package named by a specifier, and its dependencies, under `node_modules/`. */
function copyPackages(dir: string, specifiers: Iterable<string>, files: UploadedFiles): void {
  const queue = [...specifiers].flatMap((specifier) => npmPackageName(specifier) ?? []);
  const vendored = new Set<string>();
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
}

function walk(root: string, dir: string, files: UploadedFiles): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // node_modules/ too: what the code imports from it is vendored (vendor.ts).
    if (entry.name === "node_modules" || isLeftOutOfDeploy(entry.name)) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(root, full, files);
    else if (entry.isFile()) files[relative(root, full).split(sep).join(posix.sep)] = fileContent(full);
  }
}

/**
 * A file as the API takes it: UTF-8 text as a string, anything else (an image, a `.wasm`)
 * as base64, which the server keeps byte for byte for `Deno.readFile`.
 */
function fileContent(path: string): UploadedFiles[string] {
  const bytes = readFileSync(path);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { encoding: "base64", content: bytes.toString("base64") };
  }
}

function walkPackage(dir: string, prefix: string, files: UploadedFiles): void {
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

const CONFIG_FILES = ["deno.json", "deno.jsonc"];

/** The developer's deno.json; undefined when it is broken (the server is the one to say how). */
function readConfig(text: string | undefined): DenoConfig | undefined {
  if (text === undefined) return {};
  try {
    const parsed = DenoConfigSchema.safeParse(JSON.parse(stripJsonComments(text)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
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
