import { z } from "zod";

/**
 * `jsr:` specifiers → the URL of the module file on the registry, as Deno resolves them:
 * the highest non-yanked version of the package satisfying the range (`meta.json`), then
 * the export the subpath names (`<version>_meta.json`). https://jsr.io/docs/api
 */

export const JsrPackageMetaSchema = z.object({
  latest: z.string().nullish(),
  versions: z.record(z.string(), z.object({ yanked: z.boolean().optional() }).passthrough()),
});
export const JsrVersionMetaSchema = z.object({
  exports: z.record(z.string(), z.string()).default({}),
  manifest: z.record(z.string(), z.object({ checksum: z.string().optional() }).passthrough()).optional(),
});
export type JsrVersionMeta = z.infer<typeof JsrVersionMetaSchema>;

export interface JsrSpecifier {
  scope: string;
  name: string;
  /** The version range; undefined means the latest. */
  range: string | undefined;
  /** `/join` of `jsr:@std/path@1/join`; empty for the package's root export. */
  subpath: string;
}

/** `jsr:@std/path@^1/join` (or `jsr:/@std/…`) → its parts; undefined when it is not one. */
export function parseJsrSpecifier(specifier: string): JsrSpecifier | undefined {
  const match = /^jsr:\/?@([a-z0-9_-]+)\/([a-z0-9_-]+)(?:@([^/]*))?(\/.*)?$/i.exec(specifier);
  if (!match) return undefined;
  return { scope: match[1]!, name: match[2]!, range: match[3] || undefined, subpath: match[4] ?? "" };
}

interface Version {
  parts: [number, number, number];
  pre: string[];
}

export function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!match) return undefined;
  return {
    parts: [Number(match[1]), Number(match[2]), Number(match[3])],
    pre: match[4] ? match[4].split(".") : [],
  };
}

/** Semver precedence (semver.org §11): numbers, then a prerelease sorts before its release. */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.parts[i] !== b.parts[i]) return a.parts[i]! - b.parts[i]!;
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Whether a version satisfies a range of the subset Deno's specifiers use: exact
 * (`1.2.3`), partial (`1`, `1.2`), `^`, `~`, `>=`, `*`. As in npm, a prerelease matches
 * only a range naming a prerelease of the same major.minor.patch.
 */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  if (!v) return false;
  const trimmed = range.trim();
  if (trimmed === "*" || trimmed === "" || trimmed === "latest") return v.pre.length === 0;
  const match = /^(\^|~|>=|=)?v?(\d+)(?:\.(\d+|[x*]))?(?:\.(\d+|[x*]))?(?:-([0-9A-Za-z.-]+))?$/.exec(trimmed);
  if (!match) return false;
  const [, operator = "", major, minor, patch, pre] = match;
  const given = [major, minor, patch].filter((part) => part !== undefined && !/[x*]/.test(part)).length;
  const base: Version = {
    parts: [
      Number(major),
      Number(/\d/.test(minor ?? "") ? minor : 0),
      Number(/\d/.test(patch ?? "") ? patch : 0),
    ],
    pre: pre ? pre.split(".") : [],
  };
  if (v.pre.length > 0 && (base.pre.length === 0 || v.parts.some((part, i) => part !== base.parts[i])))
    return false;
  if (compareVersions(v, base) < 0) return false;
  const [M, m, p] = base.parts;
  if (operator === ">=") return true;
  if (operator === "" || operator === "=") {
    if (given === 3) return compareVersions(v, base) === 0;
    return given === 1 ? v.parts[0] === M : v.parts[0] === M && v.parts[1] === m;
  }
  if (operator === "~") return v.parts[0] === M && (given === 1 || v.parts[1] === m);
  // ^: the leftmost non-zero part of those given is fixed.
  if (M > 0 || given === 1) return v.parts[0] === M;
  if (m > 0 || given === 2) return v.parts[0] === 0 && v.parts[1] === m;
  return v.parts[0] === 0 && v.parts[1] === 0 && v.parts[2] === p;
}

/** The version to use: the highest non-yanked one satisfying the range, else the latest. */
export function pickVersion(meta: z.infer<typeof JsrPackageMetaSchema>, range: string | undefined) {
  const candidates = Object.entries(meta.versions)
    .filter(([, info]) => !info.yanked)
    .map(([text]) => ({ text, version: parseVersion(text) }))
    .filter((entry): entry is { text: string; version: Version } => entry.version !== undefined);
  if (range === undefined && meta.latest && candidates.some((c) => c.text === meta.latest))
    return meta.latest;
  const matching = candidates.filter((c) => satisfies(c.text, range ?? "*"));
  matching.sort((a, b) => compareVersions(b.version, a.version));
  return matching[0]?.text;
}

export interface JsrResolved {
  /** `<registry>/@scope/name/<version>/<file>`: fetched like any https: module. */
  url: string;
  /** `<registry>/@scope/name/<version>/`: module URLs under it are checked against `manifest`. */
  packageUrl: string;
  meta: JsrVersionMeta;
}

/** Resolves jsr: specifiers against one registry, fetching each package's metadata once. */
export function createJsrResolver(registry: string, getJson: (url: string) => Promise<unknown>) {
  const base = registry.replace(/\/+$/, "");
  const packages = new Map<string, Promise<z.infer<typeof JsrPackageMetaSchema>>>();
  const versions = new Map<string, Promise<JsrVersionMeta>>();
  const cached = <T>(cache: Map<string, Promise<T>>, url: string, schema: z.ZodType<T>) => {
    let entry = cache.get(url);
    if (!entry) {
      entry = getJson(url).then((json) => {
        const parsed = schema.safeParse(json);
        if (!parsed.success)
          throw new Error(`${url} is not jsr metadata: ${parsed.error.issues[0]?.message}`);
        return parsed.data;
      });
      cache.set(url, entry);
    }
    return entry;
  };

  return async function resolveJsr(specifier: string): Promise<JsrResolved> {
    const parsed = parseJsrSpecifier(specifier);
    if (!parsed) throw new Error(`'${specifier}' is not a jsr specifier (jsr:@scope/name@range/subpath)`);
    const pkg = `@${parsed.scope}/${parsed.name}`;
    const meta = await cached(packages, `${base}/${pkg}/meta.json`, JsrPackageMetaSchema);
    const version = pickVersion(meta, parsed.range);
    if (!version) {
      const known = Object.keys(meta.versions).join(", ") || "none";
      throw new Error(`no version of ${pkg} matches '${parsed.range ?? "*"}' (published: ${known})`);
    }
    const versionMeta = await cached(versions, `${base}/${pkg}/${version}_meta.json`, JsrVersionMetaSchema);
    const exportName = `.${parsed.subpath}`;
    const target = versionMeta.exports[exportName];
    if (!target) {
      throw new Error(
        `${pkg}@${version} has no export '${exportName}' (exports: ${Object.keys(versionMeta.exports).join(", ")})`,
      );
    }
    const packageUrl = `${base}/${pkg}/${version}/`;
    return { url: new URL(target.replace(/^\.?\//, ""), packageUrl).href, packageUrl, meta: versionMeta };
  };
}
