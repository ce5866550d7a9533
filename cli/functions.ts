import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";
import {
  DenoConfigSchema,
  isLeftOutOfDeploy,
  lookupImportMap,
  stripJsonComments,
  type DenoConfig,
  type UploadedFiles,
} from "../runtime/index.ts";
import { isScannable, scanImports } from "./import-scan.ts";
import { LOCK_FILE, npmSettings, resolveNpmPackages } from "./npm-packages.ts";
import { DEFAULT_VENDOR_LIMITS, isRemoteSpecifier, vendorRemote } from "./vendor.ts";

/** Of a vendored package, only what can be imported. */
const PACKAGE_FILE = /\.(?:m?js|cjs|json|ts|mts|tsx|jsx)$/;
const NOT_IMPORTABLE = /(?:\.d\.[mc]?ts|\.map|\.test\.[jt]s)$/;

/**
 * A Deno test file (`index.test.ts`, `greet_test.ts`, `test.ts`): `deno test` runs it on the author's
 * machine; the function never imports it, so what it imports (`tessera/testing`, a test library) is
 * not vendored.
 */
const TEST_FILE = /(?:^|\/)(?:test|[^/]+[._]test)\.[mc]?[jt]sx?$/;

export interface CollectOptions {
  /** The jsr registry (`TESSERA_JSR_URL`); default https://jsr.io. */
  jsrUrl?: string | undefined;
  /** Caps on the remote modules vendored, bytes and count. */
  maxVendorBytes?: number | undefined;
  maxVendorModules?: number | undefined;
  /**
   * The CLI's environment, for the npm registry and cache (`npmSettings`): `TESSERA_NPM_REGISTRY`,
   * `npm_config_registry`, `TESSERA_NPM_CACHE`, `XDG_CACHE_HOME`. Default: none set.
   */
  env?: Record<string, string | undefined>;
  /** Resolve npm ranges against the registry again, ignoring and rewriting `tessera.lock`. */
  updateLock?: boolean | undefined;
  fetch?: typeof fetch;
}

/**
 * The upload for `functions deploy DIR`: the folder's sources (no dot-env, no VCS), plus
 * what the server cannot fetch itself, having perhaps no internet: every `https:` and
 * `jsr:` module the function imports (in its sources or as deno.json import map values),
 * with their own imports, under `vendor/` with generated import map entries merged into
 * the uploaded deno.json (the developer's entries win); and every npm package (`npm:`,
 * deno.json mappings to `npm:`, bare imports, and those of vendored modules), with its
 * dependencies, at the version its range selects: an installed copy that satisfies it, else
 * the one `tessera.lock` records, else the registry's newest (`npm-packages.ts`).
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
    if (typeof source !== "string" || !isScannable(path) || TEST_FILE.test(path)) continue;
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
  // The lock is the author's record of what the registry chose; the server has no use for it.
  delete files[LOCK_FILE];
  const packages = await resolveNpmPackages(npm, {
    dir,
    ...npmSettings(options.env ?? {}),
    updateLock: options.updateLock === true,
    fetch: options.fetch ?? fetch,
  });
  for (const [name, folder] of packages) walkPackage(folder, `node_modules/${name}`, files);
  return files;
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
