import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { z } from "zod";
import {
  cachedPackage,
  createPackumentSource,
  integrityOf,
  NpmError,
  pickNpmVersion,
  type NpmManifest,
  type Packument,
  type TarballRef,
} from "./npm-registry.ts";
import { isDistTag, isSemverRange, satisfiesNpm } from "./npm-semver.ts";

/**
 * The npm packages a function imports, at the versions its specifiers ask for, one version
 * of each (the upload holds them as `node_modules/<name>/`, and the server resolves
 * `npm:name@…` and bare `name` to that folder). For each package, in this order:
 *
 * 1. an installed copy (the nearest `node_modules`, as Deno and Node find it) is used when
 *    its version satisfies the range; when it does not, the deploy stops and names both;
 * 2. else the version recorded in the function's `tessera.lock` for that range;
 * 3. else the registry: the highest version satisfying the range (`latest` without one),
 *    its tarball checked against `dist.integrity`, unpacked into the cache, and recorded
 *    in `tessera.lock` so the next deploy takes the same version until the lock is updated.
 *
 * Dependencies follow the same rules: from node_modules beside an installed package, else
 * locked or resolved like the package itself.
 */

export const LOCK_FILE = "tessera.lock";
export const DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org/";

export interface NpmVendorOptions {
  /** The function's folder: where node_modules is looked for and tessera.lock lives. */
  dir: string;
  registry: string;
  /** Unpacked packages, one folder per name and version. */
  cacheDir: string;
  /** Resolve every range against the registry again and rewrite the lock. */
  updateLock: boolean;
  fetch: typeof fetch;
}

/**
 * Where packages come from and go: `TESSERA_NPM_REGISTRY`, else npm's `npm_config_registry`,
 * else registry.npmjs.org; `TESSERA_NPM_CACHE`, else `$XDG_CACHE_HOME/tessera/npm`, else
 * `~/.cache/tessera/npm`.
 */
export function npmSettings(env: Record<string, string | undefined>): { registry: string; cacheDir: string } {
  return {
    registry: env.TESSERA_NPM_REGISTRY || env.npm_config_registry || DEFAULT_NPM_REGISTRY,
    cacheDir:
      env.TESSERA_NPM_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "tessera", "npm"),
  };
}

const LockSchema = z.object({
  version: z.literal(1),
  npm: z.object({
    /** `name@range` → the version it resolved to. */
    specifiers: z.record(z.string(), z.string()),
    /** `name@version` → where its tarball is, its integrity, and what it depends on. */
    packages: z.record(
      z.string(),
      z.object({
        resolved: z.string(),
        integrity: z.string(),
        dependencies: z.record(z.string(), z.string()).optional(),
      }),
    ),
  }),
});
type Lock = z.infer<typeof LockSchema>;

interface Need {
  /** The folder under node_modules/ (an alias's own name). */
  install: string;
  /** The registry package (differs from `install` for `npm:` aliases in dependencies). */
  pkg: string;
  /** undefined: any installed copy; from the registry, the `latest` tag. */
  range: string | undefined;
  /** How an error names who needs it: `npm:zod@3`, `a@1.0.0`. */
  label: string;
  /** Where to look for an installed copy (its node_modules and those above); undefined: none. */
  installedFrom: string | undefined;
  /** A bare import with no version anywhere: it must be installed. */
  bare?: boolean;
}

interface Chosen {
  pkg: string;
  version: string;
  label: string;
  /** An installed copy's folder; else the registry's tarball. */
  folder?: string;
  ref?: TarballRef;
}

/**
 * Resolves every package named by `specifiers` (`npm:zod@3/mini`, bare `zod`), with its
 * dependencies, to a folder (installed, or unpacked in the cache) by the name it is imported
 * as, and writes the lock when the registry or the lock decided a version.
 *
 * @example
 *   const folders = await resolveNpmPackages(["npm:zod@3"], { dir, ...npmSettings(env), updateLock: false, fetch });
 *   // Map { "zod" => "/home/ada/.cache/tessera/npm/zod/3.25.76" }
 */
export async function resolveNpmPackages(
  specifiers: Iterable<string>,
  options: NpmVendorOptions,
): Promise<Map<string, string>> {
  const folders = new Map<string, string>();
  const roots = rootNeeds(specifiers, options.dir);
  if (roots.length === 0) return folders;
  const lockPath = join(options.dir, LOCK_FILE);
  const previous = readLock(lockPath);
  const resolver = new TreeResolver(options, options.updateLock ? emptyLock() : previous);
  await resolver.run(roots);
  await forEachLimited([...resolver.chosen.entries()], 6, async ([install, pick]) => {
    folders.set(install, pick.folder ?? (await cachedPackage(pick.ref!, options.cacheDir, options.fetch)));
  });
  writeLock(lockPath, previous, resolver.next);
  return new Map([...folders].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** `npm:name@range/sub` and bare `name/sub` → what to vendor; the same need once. */
function rootNeeds(specifiers: Iterable<string>, dir: string): Need[] {
  const needs = new Map<string, Need>();
  let manifest: InstalledManifest | undefined | null = null;
  for (const specifier of specifiers) {
    const npm = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]*))?(?:\/.*)?$/.exec(specifier);
    const name = npm ? npm[1]! : npmPackageName(specifier);
    if (!name) continue;
    let need: Need;
    if (npm) {
      const range = npm[2] || undefined;
      need = {
        install: name,
        pkg: name,
        range,
        label: `npm:${name}${range ? `@${range}` : ""}`,
        installedFrom: dir,
      };
    } else {
      // A bare import takes its range from package.json, as Deno and Node read it.
      if (manifest === null) manifest = nearestPackageJson(dir);
      const range = manifest?.dependencies?.[name] ?? manifest?.devDependencies?.[name];
      const label = range ? `'${name}' (package.json: ${range})` : `'${name}'`;
      need = { install: name, pkg: name, range, label, installedFrom: dir, bare: range === undefined };
    }
    needs.set(`${need.install} ${need.range ?? ""}`, need);
  }
  return [...needs.values()];
}

/**
 * One deploy's resolution. Breadth first, so the function's own imports decide a package's
 * version before any dependency does; each level's metadata is fetched at once.
 */
class TreeResolver {
  readonly chosen = new Map<string, Chosen>();
  /** What this deploy took from the registry or the lock: the lock to write. */
  readonly next = emptyLock();
  private readonly packuments: (name: string) => Promise<Packument>;
  /** Every range the function itself imports a package with must hold for the version chosen. */
  private readonly rootRanges = new Map<string, string[]>();

  constructor(
    private readonly options: NpmVendorOptions,
    private readonly lock: Lock,
  ) {
    this.packuments = createPackumentSource(options.registry, options.fetch);
  }

  async run(roots: Need[]): Promise<void> {
    for (const need of roots) {
      if (need.range)
        this.rootRanges.set(need.install, [...(this.rootRanges.get(need.install) ?? []), need.range]);
    }
    let level = roots;
    while (level.length > 0) {
      const wanted = level.filter(
        (need) =>
          !this.chosen.has(need.install) && !this.installed(need) && !this.lockedVersion(need) && !need.bare,
      );
      await Promise.all(wanted.map((need) => this.packuments(need.pkg).catch(() => undefined)));
      const deeper: Need[] = [];
      for (const need of level) deeper.push(...(await this.decide(need)));
      level = deeper;
    }
  }

  private async decide(need: Need): Promise<Need[]> {
    const existing = this.chosen.get(need.install);
    if (existing) {
      if (existing.pkg !== need.pkg || !fits(existing.version, need.range)) {
        throw new NpmError(
          `${need.label} needs ${need.pkg}@${need.range ?? "latest"}, but the upload already has ${need.install} ${existing.version} (for ${existing.label}): a function holds one version of each npm package`,
        );
      }
      this.record(need, existing);
      return [];
    }
    const folder = this.installed(need);
    if (folder) return useInstalled(need, folder, this.options.dir, this.chosen);
    if (need.bare) {
      throw new NpmError(
        `${need.label} is imported without a version and is not installed: map it in deno.json ("${need.install}": "npm:${need.install}@<range>") or run npm install ${need.install}`,
      );
    }
    const range = need.range ?? "latest";
    if (!isSemverRange(range) && !isDistTag(range)) {
      throw new NpmError(
        `${need.label} needs ${need.install}@${range}, which is not a registry version: Tessera vendors registry packages only`,
      );
    }
    const { pick, ref, dependencies } = await this.fromLockOrRegistry(need, range);
    this.chosen.set(need.install, pick);
    this.record(need, pick);
    this.next.npm.packages[`${need.pkg}@${pick.version}`] = {
      resolved: ref.resolved,
      integrity: ref.integrity,
      ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}),
    };
    const parent = `${need.pkg}@${pick.version}`;
    return Object.entries(dependencies).map(([name, spec]) => dependencyNeed(name, spec, parent, undefined));
  }

  /** The locked version when the lock has this range, else the registry's pick; with its dependencies. */
  private async fromLockOrRegistry(need: Need, range: string) {
    const locked = this.lockedVersion(need);
    const entry = locked ? this.lock.npm.packages[`${need.pkg}@${locked}`] : undefined;
    if (locked && entry && fits(locked, need.range)) {
      const ref: TarballRef = { name: need.pkg, version: locked, ...entry };
      const pick: Chosen = { pkg: need.pkg, version: locked, label: need.label, ref };
      return { pick, ref, dependencies: entry.dependencies ?? {} };
    }
    const packument = await this.packuments(need.pkg);
    const version = pickFor(packument, range, this.rootRanges.get(need.install) ?? []);
    if (!version) {
      const latest = packument["dist-tags"].latest;
      throw new NpmError(
        `no version of ${need.pkg} matches '${range}' (for ${need.label}; ${this.options.registry} has ${latest ? `latest ${latest}` : "no latest"})`,
      );
    }
    const manifest = packument.versions[version]!;
    const ref = tarballRef(need.pkg, manifest);
    const pick: Chosen = { pkg: need.pkg, version, label: need.label, ref };
    return { pick, ref, dependencies: dependenciesOf(manifest) };
  }

  /** Registry (and lock) versions are locked; installed copies have npm's own lock. */
  private record(need: Need, pick: Chosen): void {
    if (pick.ref) this.next.npm.specifiers[`${need.pkg}@${need.range ?? "latest"}`] = pick.version;
  }

  private lockedVersion(need: Need): string | undefined {
    return this.lock.npm.specifiers[`${need.pkg}@${need.range ?? "latest"}`];
  }

  private installed(need: Need): string | undefined {
    return need.installedFrom ? findPackage(need.installedFrom, need.install) : undefined;
  }
}

function useInstalled(need: Need, folder: string, dir: string, chosen: Map<string, Chosen>): Need[] {
  const manifest = readManifest(folder);
  const version = manifest.version ?? "(no version)";
  if (!fits(version, need.range)) {
    const shown = relative(dir, folder);
    const where = shown === join("node_modules", need.install) ? "" : ` (${shown})`;
    throw new NpmError(
      `${need.label} is imported but node_modules has ${need.install} ${version}${where}: install ${need.pkg}@${need.range} or change the import`,
    );
  }
  chosen.set(need.install, { pkg: need.pkg, version, label: need.label, folder });
  const label = `${need.install}@${version}`;
  return Object.entries(dependenciesOf(manifest)).map(([name, spec]) =>
    dependencyNeed(name, spec, label, folder),
  );
}

/** A dependency entry: `"b": "^1"`, or an alias `"b": "npm:other@^1"` installed as `b`. */
function dependencyNeed(name: string, spec: string, parent: string, installedFrom: string | undefined): Need {
  const alias = /^npm:((?:@[^/@]+\/)?[^/@]+)(?:@(.*))?$/.exec(spec);
  const pkg = alias ? alias[1]! : name;
  const range = alias ? alias[2] || undefined : spec;
  return { install: name, pkg, range, label: parent, installedFrom };
}

/** Whether a version holds for a range; what is not a semver range (a tag, a URL) is not checked. */
function fits(version: string, range: string | undefined): boolean {
  return range === undefined || !isSemverRange(range) || satisfiesNpm(version, range);
}

/** The highest version the range allows that every range the function imports the package with allows too. */
function pickFor(packument: Packument, range: string, rootRanges: string[]): string | undefined {
  return pickNpmVersion(packument, range, (version) => rootRanges.every((other) => fits(version, other)));
}

function tarballRef(name: string, manifest: NpmManifest): TarballRef {
  const integrity = integrityOf(manifest);
  if (!integrity) throw new NpmError(`${name}@${manifest.version} has no integrity in the registry: refused`);
  return { name, version: manifest.version, resolved: manifest.dist.tarball, integrity };
}

/** What npm installs with a package: its dependencies and the peers it does not mark optional. */
function dependenciesOf(
  manifest: Pick<NpmManifest, "dependencies" | "peerDependencies" | "peerDependenciesMeta">,
) {
  const peers = Object.entries(manifest.peerDependencies ?? {}).filter(
    ([name]) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
  );
  return { ...Object.fromEntries(peers), ...manifest.dependencies };
}

interface InstalledManifest extends Pick<
  NpmManifest,
  "dependencies" | "peerDependencies" | "peerDependenciesMeta"
> {
  version?: string;
  devDependencies?: Record<string, string>;
}

function readManifest(folder: string): InstalledManifest {
  try {
    return JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as InstalledManifest;
  } catch {
    throw new NpmError(`${join(folder, "package.json")} is not valid JSON`);
  }
}

function nearestPackageJson(from: string): InstalledManifest | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return readManifest(dir);
    if (dirname(dir) === dir) return undefined;
  }
}

function emptyLock(): Lock {
  return { version: 1, npm: { specifiers: {}, packages: {} } };
}

function readLock(path: string): Lock {
  if (!existsSync(path)) return emptyLock();
  let parsed;
  try {
    parsed = LockSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw new NpmError(
      `${path} is not a lock this version of Tessera reads: delete it or deploy with --update-lock`,
    );
  }
  return parsed.data;
}

/** Written when the registry decided something and it differs from what is there (keys sorted). */
function writeLock(path: string, previous: Lock, next: Lock): void {
  if (Object.keys(next.npm.packages).length === 0) return;
  const sorted = (record: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
  const text = (lock: Lock) =>
    `${JSON.stringify({ version: 1, npm: { specifiers: sorted(lock.npm.specifiers), packages: sorted(lock.npm.packages) } }, null, 2)}\n`;
  const content = text(next);
  if (existsSync(path) && text(previous) === content) return;
  writeFileSync(path, content);
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

async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
