import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { compareVersions, parseVersion } from "./jsr.ts";
import { isDistTag, satisfiesNpm } from "./npm-semver.ts";

/**
 * The npm registry as `functions deploy` uses it: a package's abbreviated metadata (the
 * "packument", https://github.com/npm/registry/blob/main/docs/responses/package-metadata.md),
 * the version a range picks from it, and a version's tarball, checked against
 * its `dist.integrity` (W3C Subresource Integrity) and unpacked into a cache folder that
 * later deploys reuse.
 */

export class NpmError extends Error {}

const ManifestSchema = z.object({
  version: z.string(),
  dist: z.object({ tarball: z.string(), integrity: z.string().optional(), shasum: z.string().optional() }),
  dependencies: z.record(z.string(), z.string()).optional(),
  peerDependencies: z.record(z.string(), z.string()).optional(),
  peerDependenciesMeta: z.record(z.string(), z.object({ optional: z.boolean().optional() })).optional(),
});
export type NpmManifest = z.infer<typeof ManifestSchema>;
const PackumentSchema = z.object({
  "dist-tags": z.record(z.string(), z.string()).default({}),
  versions: z.record(z.string(), ManifestSchema),
});
export type Packument = z.infer<typeof PackumentSchema>;

/** Fetches packuments from one registry, each once. */
export function createPackumentSource(registry: string, get: typeof fetch) {
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  const cache = new Map<string, Promise<Packument>>();
  return (name: string): Promise<Packument> => {
    let entry = cache.get(name);
    if (!entry) {
      entry = fetchPackument(base, name, get);
      cache.set(name, entry);
    }
    return entry;
  };
}

async function fetchPackument(base: string, name: string, get: typeof fetch): Promise<Packument> {
  // A scoped name keeps its @ and escapes its slash: /@scope%2fname.
  const url = base + name.replace("/", "%2f");
  let response: Response;
  try {
    response = await get(url, {
      headers: { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8" },
    });
  } catch (error) {
    throw new NpmError(`could not reach the npm registry ${base} for ${name}: ${networkReason(error)}`);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    throw new NpmError(`npm package '${name}' is not in the registry ${base}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new NpmError(`the npm registry ${base} answered ${response.status} for ${name}`);
  }
  const parsed = PackumentSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new NpmError(`the npm registry ${base} sent no usable metadata for ${name}`);
  return parsed.data;
}

/** `fetch failed` says nothing: the cause (`ECONNREFUSED`, `ENOTFOUND`…) does. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/**
 * The version a range selects: the highest that satisfies it, prereleases only when the
 * range names one (and `alsoAllowed` admits it); no range, or a dist-tag such as `latest`
 * or `next`, takes that tag.
 */
export function pickNpmVersion(
  packument: Packument,
  range: string | undefined,
  alsoAllowed: (version: string) => boolean = () => true,
): string | undefined {
  const wanted = range?.trim() || "latest";
  if (isDistTag(wanted)) {
    const tagged = packument["dist-tags"][wanted];
    return tagged && tagged in packument.versions ? tagged : undefined;
  }
  let best: { text: string; version: NonNullable<ReturnType<typeof parseVersion>> } | undefined;
  for (const text of Object.keys(packument.versions)) {
    const version = parseVersion(text);
    if (!version || !satisfiesNpm(text, wanted) || !alsoAllowed(text)) continue;
    if (!best || compareVersions(version, best.version) > 0) best = { text, version };
  }
  return best?.text;
}

/** Caps on what one tarball may unpack to: npm's own packages are far below them. */
const MAX_TARBALL_BYTES = 64 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;
const MAX_ENTRIES = 20_000;
const MAX_PATH_DEPTH = 32;

export interface TarballRef {
  name: string;
  version: string;
  resolved: string;
  integrity: string;
}

/**
 * The package's folder in the cache (`<cache>/<name>/<version>`), downloading, checking
 * and unpacking its tarball when the cache lacks it or holds another integrity.
 */
export async function cachedPackage(ref: TarballRef, cacheDir: string, get: typeof fetch): Promise<string> {
  const folder = join(cacheDir, ref.name, ref.version);
  const marker = join(folder, ".tessera-integrity");
  if (existsSync(marker) && readFileSync(marker, "utf8") === ref.integrity) return folder;
  const gz = await download(ref, get);
  checkIntegrity(ref, gz);
  const files = readTar(gunzip(ref, gz), `${ref.name}@${ref.version}`);
  // Unpacked aside, then renamed into place: a cache folder is whole or absent.
  const staging = join(cacheDir, ref.name, `.staging-${ref.version}-${randomBytes(4).toString("hex")}`);
  try {
    for (const [path, bytes] of files) {
      mkdirSync(dirname(join(staging, path)), { recursive: true });
      writeFileSync(join(staging, path), bytes);
    }
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, ".tessera-integrity"), ref.integrity);
    rmSync(folder, { recursive: true, force: true });
    try {
      renameSync(staging, folder);
    } catch (error) {
      // Another deploy unpacked the same version meanwhile: theirs is as good.
      if (!existsSync(marker) || readFileSync(marker, "utf8") !== ref.integrity) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return folder;
}

async function download(ref: TarballRef, get: typeof fetch): Promise<Buffer> {
  const what = `${ref.name}@${ref.version}`;
  checkTarballUrl(what, ref.resolved);
  let response: Response;
  try {
    response = await get(ref.resolved);
  } catch (error) {
    throw new NpmError(`could not download ${what} from ${ref.resolved}: ${networkReason(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new NpmError(`could not download ${what} from ${ref.resolved}: ${response.status}`);
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length > MAX_TARBALL_BYTES)
    throw new NpmError(`${what}: its tarball is larger than ${MAX_TARBALL_BYTES} bytes`);
  return bytes;
}

/** Only https:, and http: on the loopback host (a local registry), as for remote modules. */
function checkTarballUrl(what: string, resolved: string): void {
  let url: URL | undefined;
  try {
    url = new URL(resolved);
  } catch {
    url = undefined;
  }
  const loopback = url !== undefined && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url?.protocol === "https:" || (url?.protocol === "http:" && loopback)) return;
  throw new NpmError(`${what}: its tarball ${resolved} is not an https: URL (http: only from localhost)`);
}

const ALGORITHMS = ["sha512", "sha384", "sha256", "sha1"] as const;

/** SRI: the strongest algorithm listed decides (https://www.w3.org/TR/SRI/#does-response-match-metadatalist). */
function checkIntegrity(ref: TarballRef, bytes: Buffer): void {
  const listed = ref.integrity.split(/\s+/).map((item) => /^([a-z0-9]+)-([A-Za-z0-9+/=]+)/.exec(item));
  const algorithm = ALGORITHMS.find((name) => listed.some((match) => match?.[1] === name));
  const actual = algorithm && createHash(algorithm).update(bytes).digest("base64");
  if (!algorithm || !listed.some((match) => match?.[1] === algorithm && match[2] === actual)) {
    throw new NpmError(
      `${ref.name}@${ref.version}: the tarball from ${ref.resolved} does not match its integrity ${ref.integrity}; refused`,
    );
  }
}

/** The integrity to check and lock: `dist.integrity`, else the old sha1 `shasum` as SRI. */
export function integrityOf(manifest: NpmManifest): string | undefined {
  if (manifest.dist.integrity) return manifest.dist.integrity;
  const hex = manifest.dist.shasum;
  return hex && /^[0-9a-f]{40}$/i.test(hex)
    ? `sha1-${Buffer.from(hex, "hex").toString("base64")}`
    : undefined;
}

function gunzip(ref: TarballRef, gz: Buffer): Buffer {
  try {
    return gunzipSync(gz, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch (error) {
    throw new NpmError(
      `${ref.name}@${ref.version}: the tarball does not unpack (${(error as Error).message})`,
    );
  }
}

/**
 * The regular files of a tar archive (POSIX ustar, with pax `path` and GNU long names), the
 * first path segment (npm's `package/`) removed. Links, devices and folders are skipped; a
 * path leaving the package, too deep, or too many entries refuse the archive.
 */
export function readTar(tar: Buffer, what: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let offset = 0;
  let longName: string | undefined;
  let entries = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    if (++entries > MAX_ENTRIES)
      throw new NpmError(`${what}: its tarball has more than ${MAX_ENTRIES} entries`);
    const size = parseOctal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156]!);
    const start = offset + 512;
    const end = start + size;
    if (Number.isNaN(size) || end > tar.length)
      throw new NpmError(`${what}: its tarball is truncated or corrupt`);
    const body = tar.subarray(start, end);
    offset = start + Math.ceil(size / 512) * 512;
    if (type === "x") longName = paxPath(body) ?? longName;
    else if (type === "L") longName = body.toString("utf8").replace(/\0.*$/s, "");
    else if (type === "g") continue;
    else {
      const name = longName ?? ustarName(header);
      longName = undefined;
      if (type !== "0" && type !== "\0" && type !== "7") continue;
      const path = packagePath(name, what);
      if (path) files.set(path, Buffer.from(body));
    }
  }
  return files;
}

function parseOctal(field: Buffer): number {
  const digits = field.toString("ascii").replace(/\0.*$/s, "").trim();
  return digits === "" ? 0 : /^[0-7]+$/.test(digits) ? parseInt(digits, 8) : NaN;
}

function ustarName(header: Buffer): string {
  const field = (from: number, to: number) =>
    header.subarray(from, to).toString("utf8").replace(/\0.*$/s, "");
  const prefix = field(257, 263) === "ustar" ? field(345, 500) : "";
  return prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
}

/** A pax extended header's `path` record: `<length> path=<value>\n`. */
function paxPath(body: Buffer): string | undefined {
  const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
  return match?.[1];
}

function packagePath(name: string, what: string): string | undefined {
  const segments = name.split("/").filter((segment) => segment !== "" && segment !== ".");
  segments.shift();
  if (segments.length === 0) return undefined;
  const path = posix.normalize(segments.join("/"));
  if (path.startsWith("..") || segments.includes("..") || segments.length > MAX_PATH_DEPTH) {
    throw new NpmError(`${what}: its tarball holds a path that leaves the package (${name})`);
  }
  return path;
}
