import { compareVersions, parseVersion } from "./jsr.ts";

/**
 * npm's version ranges as node-semver reads them (https://github.com/npm/node-semver#ranges),
 * without its options: what package.json dependencies and `npm:` specifiers write. The
 * versions themselves (parse, precedence) are jsr.ts's, semver.org's for both registries.
 */

/** A dist-tag, not a range: a name that is not a version, `x` or an operator. */
export function isDistTag(range: string): boolean {
  return /^[a-z][a-z0-9._-]*$/i.test(range) && !/^[xX]$/.test(range) && !/^v\d/.test(range);
}

/** Whether a range uses only what node-semver parses (not a tag, URL, path or alias). */
export function isSemverRange(range: string): boolean {
  return parseRange(range) !== undefined;
}

interface Comparator {
  op: "<" | "<=" | ">" | ">=" | "=";
  version: string;
  /** A bound written by desugaring (`<2.0.0-0`), which does not admit prereleases. */
  synthetic?: boolean;
}

/**
 * node-semver's `satisfies(version, range)` without options: `||` of space-separated
 * comparator sets; `1.2.3 - 2`, `1.x`, `~`, `^`, `<`, `<=`, `>`, `>=`, `=`; a prerelease
 * satisfies a set only if one of its comparators names a prerelease of the same x.y.z.
 */
export function satisfiesNpm(version: string, range: string): boolean {
  const v = parseVersion(version);
  const sets = parseRange(range);
  if (!v || !sets) return false;
  return sets.some((set) => {
    const inside = set.every(({ op, version: bound }) => {
      const order = compareVersions(v, parseVersion(bound)!);
      return op === "<"
        ? order < 0
        : op === "<="
          ? order <= 0
          : op === ">"
            ? order > 0
            : op === ">="
              ? order >= 0
              : order === 0;
    });
    if (!inside || v.pre.length === 0) return inside;
    return set.some((c) => {
      const bound = parseVersion(c.version)!;
      return !c.synthetic && bound.pre.length > 0 && bound.parts.every((part, i) => part === v.parts[i]);
    });
  });
}

type PartialVersion = { parts: (number | undefined)[]; pre: string };
const PARTIAL =
  /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parsePartial(text: string): PartialVersion | undefined {
  const match = PARTIAL.exec(text);
  if (!match) return undefined;
  const parts = [match[1], match[2], match[3]].map((part) =>
    part === undefined || /[xX*]/.test(part) ? undefined : Number(part),
  );
  // After a wildcard, nothing more is fixed (`1.x.3` is `1.x`).
  const cut = parts.indexOf(undefined);
  if (cut >= 0) parts.fill(undefined, cut);
  return { parts, pre: cut >= 0 ? "" : (match[4] ?? "") };
}

const versionText = (parts: (number | undefined)[], pre = "") =>
  `${parts[0] ?? 0}.${parts[1] ?? 0}.${parts[2] ?? 0}${pre ? `-${pre}` : ""}`;
/** The first version past a partial's span: `1.2` → `1.3.0-0`, `1` → `2.0.0-0`. */
const above = (parts: (number | undefined)[], given: number): Comparator => {
  const next = parts.slice(0, given).map((part) => part ?? 0);
  next[given - 1] = next[given - 1]! + 1;
  return { op: "<", version: versionText(next, "0"), synthetic: true };
};

function parseRange(range: string): Comparator[][] | undefined {
  const sets: Comparator[][] = [];
  for (const alternative of range.split("||")) {
    const clean = alternative.trim().replace(/(<=|>=|[<>=~^])\s+/g, "$1");
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(clean);
    const set: Comparator[] = [];
    if (hyphen) {
      const from = parsePartial(hyphen[1]!);
      const to = parsePartial(hyphen[2]!);
      if (!from || !to) return undefined;
      set.push({ op: ">=", version: versionText(from.parts, from.pre) });
      const given = to.parts.filter((part) => part !== undefined).length;
      if (given === 3) set.push({ op: "<=", version: versionText(to.parts, to.pre) });
      else if (given > 0) set.push(above(to.parts, given));
    } else {
      for (const token of clean.split(/\s+/).filter(Boolean)) {
        const comparators = desugar(token);
        if (!comparators) return undefined;
        set.push(...comparators);
      }
    }
    sets.push(set);
  }
  return sets;
}

function desugar(token: string): Comparator[] | undefined {
  const [, op = "", rest = ""] = /^(<=|>=|[<>=~^]?)(.*)$/.exec(token)!;
  const partial = parsePartial(rest);
  if (!partial) return undefined;
  const { parts, pre } = partial;
  const given = parts.filter((part) => part !== undefined).length;
  const low = versionText(parts, pre);
  if (given === 0) return op === "<" || op === ">" ? [{ op: "<", version: "0.0.0-0" }] : [];
  switch (op) {
    case "":
    case "=":
      return given === 3 ? [{ op: "=", version: low }] : [{ op: ">=", version: low }, above(parts, given)];
    case "~":
      return [{ op: ">=", version: low }, above(parts, Math.min(given, 2))];
    case "^": {
      // The leftmost non-zero part of those given stays fixed.
      const fixed = parts[0] !== 0 || given === 1 ? 1 : parts[1] !== 0 || given === 2 ? 2 : 3;
      return [{ op: ">=", version: low }, above(parts, fixed)];
    }
    case ">=":
      return [{ op: ">=", version: low }];
    case ">":
      // `>1.2` is `>=1.3.0`: past the whole span, its prereleases excluded.
      return given === 3
        ? [{ op: ">", version: low }]
        : [{ op: ">=", version: above(parts, given).version.slice(0, -2) }];
    case "<":
      return [
        given === 3
          ? { op: "<", version: low }
          : { op: "<", version: versionText(parts, "0"), synthetic: true },
      ];
    case "<=":
      return given === 3 ? [{ op: "<=", version: low }] : [above(parts, given)];
    default:
      return undefined;
  }
}
