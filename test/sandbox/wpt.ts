import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

/**
 * The Web Platform Tests' URL and URLPattern vectors (test/fixtures/wpt/), split in two: a
 * program that only observes (`OBSERVER`: it runs each vector's constructor, setter or
 * match and sends back what the getters say) and the checks here, which judge what it
 * saw as WPT's harnesses do (url/url-constructor, url-setters, toascii, percent-encoding,
 * urlpattern/urlpatterntests). The same observer runs in an isolate (wpt.test.ts) and under
 * Deno (scripts/wpt-deno.ts), so both are judged by the same code.
 */

export type Outcome<T> = { value: T } | { error: string };
type Parts = Record<(typeof URL_PARTS)[number] | "searchParams", string>;

const URL_PARTS = [
  "href",
  "origin",
  "protocol",
  "username",
  "password",
  "host",
  "hostname",
  "port",
  "pathname",
  "search",
  "hash",
] as const;
const COMPONENTS = ["protocol", "username", "password", "hostname", "port", "pathname", "search", "hash"];

/**
 * The observer: `observe(kind, cases)` returns one outcome per case, JSON only (a group
 * WPT writes as `undefined` comes back `null`, as the data files write it). Plain
 * JavaScript, so it runs as is in a function and in Deno.
 */
export const OBSERVER = `
const PARTS = ${JSON.stringify(URL_PARTS)};
const COMPONENTS = ${JSON.stringify(COMPONENTS)};
const attempt = (fn) => {
  try {
    return { value: fn() };
  } catch (error) {
    return { error: error instanceof Error ? error.name : String(error) };
  }
};
const parts = (url) => ({
  ...Object.fromEntries(PARTS.map((name) => [name, url[name]])),
  searchParams: url.searchParams.toString(),
});
const changed = (href, name, value) => {
  const url = new URL(href);
  url[name] = value;
  return parts(url);
};
const groups = (found) => Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v ?? null]));
const match = (result) =>
  result && {
    inputs: result.inputs,
    ...Object.fromEntries(COMPONENTS.map((c) => [c, { input: result[c].input, groups: groups(result[c].groups) }])),
  };
const baseOf = (pattern) =>
  typeof pattern[0] === "object" && pattern[0].baseURL ? pattern[0].baseURL
    : typeof pattern[1] === "string" ? pattern[1] : null;
const OBSERVE = {
  url: ({ input, base }) => attempt(() => parts(base === null ? new URL(input) : new URL(input, base))),
  setter: ({ href, name, value }) => attempt(() => changed(href, name, value)),
  toascii: ({ input }) => ({
    parsed: attempt(() => parts(new URL("https://" + input + "/x"))),
    host: attempt(() => changed("https://x/x", "host", input).host),
    hostname: attempt(() => changed("https://x/x", "hostname", input).hostname),
  }),
  percent: ({ input }) => attempt(() => new URL("https://doesnotmatter.invalid/?" + input).search),
  pattern: ({ pattern, inputs }) => {
    const made = attempt(() => new URLPattern(...pattern));
    if ("error" in made) return { made };
    const compiled = made.value;
    const base = baseOf(pattern);
    return {
      made: { value: Object.fromEntries(COMPONENTS.map((c) => [c, compiled[c]])) },
      base: base === null ? null : attempt(() => parts(new URL(base))),
      test: inputs && attempt(() => compiled.test(...inputs)),
      exec: inputs && attempt(() => match(compiled.exec(...inputs))),
    };
  },
};
const observe = (kind, cases) => cases.map((one) => OBSERVE[kind](one));
`;

/** One WPT file: its vectors as the observer takes them, each with its name and its check. */
export interface WptFile {
  file: string;
  kind: "url" | "setter" | "toascii" | "percent" | "pattern";
  vectors: Array<{ name: string; observe: unknown; check: (observed: never) => string[] }>;
  /** Vectors of the file not run, and why. */
  skipped: string[];
}

export interface FileResult {
  file: string;
  vectors: number;
  passed: number;
  /** `name: what differed`, one per failing vector. */
  failures: string[];
}

const FIXTURES = new URL("../fixtures/wpt/", import.meta.url);
const read = (file: string): unknown => JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8"));
const show = (value: unknown) => JSON.stringify(value);
const threw = (observed: Outcome<unknown>, kind = "TypeError") =>
  "error" in observed ? (observed.error === kind ? [] : [`threw ${observed.error}`]) : ["did not throw"];
const differences = (expected: Record<string, unknown>, actual: Record<string, unknown>) =>
  Object.keys(expected)
    .filter((name) => actual[name] !== expected[name])
    .map((name) => `${name} ${show(actual[name])}, expected ${show(expected[name])}`);

/** url-constructor: `new URL(input, base)` throws for a failure, else every getter listed matches. */
function urlFile(): WptFile {
  type Vector = { input: string; base: string | null; failure?: boolean } & Partial<Parts>;
  const vectors = (read("urltestdata.json") as Array<string | Vector>).filter((v) => typeof v !== "string");
  return {
    file: "urltestdata.json",
    kind: "url",
    skipped: [],
    vectors: vectors.map((vector) => ({
      name: `${show(vector.input)}${vector.base === null ? "" : ` against ${show(vector.base)}`}`,
      observe: { input: vector.input, base: vector.base },
      check: (observed: Outcome<Parts>) => {
        if (vector.failure)
          return "error" in observed ? threw(observed) : [`parsed as ${observed.value.href}`];
        if ("error" in observed) return [`threw ${observed.error}`];
        const expected = Object.fromEntries(
          [...URL_PARTS, "searchParams"].filter((n) => n in vector).map((n) => [n, vector[n as keyof Parts]]),
        );
        return differences(expected, observed.value);
      },
    })),
  };
}

/** url-setters: `new URL(href)`, one attribute set, then every getter in `expected` matches. */
function settersFile(): WptFile {
  type Vector = { href: string; new_value: string; expected: Record<string, string> };
  const groups = read("setters_tests.json") as Record<string, Vector[]>;
  const vectors = Object.entries(groups)
    .filter(([name]) => name !== "comment")
    .flatMap(([name, list]) => list.map((vector) => ({ name, vector })));
  return {
    file: "setters_tests.json",
    kind: "setter",
    skipped: [],
    vectors: vectors.map(({ name, vector }) => ({
      name: `${name} = ${show(vector.new_value)} on ${show(vector.href)}`,
      observe: { href: vector.href, name, value: vector.new_value },
      check: (observed: Outcome<Parts>) =>
        "error" in observed ? [`threw ${observed.error}`] : differences(vector.expected, observed.value),
    })),
  };
}

/**
 * toascii: the host of `https://<input>/x`, and the `host` and `hostname` setters on
 * `https://x/x`; a null output means the host is invalid (the parse throws, the setters
 * change nothing). The `<a>` element's half of WPT's test has no counterpart here.
 */
function toasciiFile(): WptFile {
  type Vector = { input: string; output: string | null };
  const vectors = (read("toascii.json") as Array<string | Vector>).filter((v) => typeof v !== "string");
  type Seen = { parsed: Outcome<Parts>; host: Outcome<string>; hostname: Outcome<string> };
  return {
    file: "toascii.json",
    kind: "toascii",
    skipped: [],
    vectors: vectors.map((vector) => ({
      name: show(vector.input),
      observe: { input: vector.input },
      check: ({ parsed, host, hostname }: Seen) => {
        const output = vector.output;
        const setters = differences(
          { host: output ?? "x", hostname: output ?? "x" },
          {
            host: "error" in host ? `threw ${host.error}` : host.value,
            hostname: "error" in hostname ? `threw ${hostname.error}` : hostname.value,
          },
        ).map((line) => `setter ${line}`);
        if (output === null) return [...threw(parsed), ...setters];
        if ("error" in parsed) return [`threw ${parsed.error}`, ...setters];
        const parse = { host: output, hostname: output, pathname: "/x", href: `https://${output}/x` };
        return [...differences(parse, parsed.value), ...setters];
      },
    })),
  };
}

/**
 * percent-encoding: the query of `https://doesnotmatter.invalid/?<input>`. Only the UTF-8
 * expectation applies: WPT checks the others through a document in that encoding (the URL
 * parser's encoding override), which only an HTML page has; `new URL` always encodes UTF-8.
 */
function percentFile(): WptFile {
  type Vector = { input: string; output: Record<string, string> };
  const vectors = (read("percent-encoding.json") as Array<string | Vector>).filter(
    (v) => typeof v !== "string",
  );
  const others = [...new Set(vectors.flatMap((v) => Object.keys(v.output)).filter((e) => e !== "utf-8"))];
  return {
    file: "percent-encoding.json",
    kind: "percent",
    skipped: [
      `${vectors.length * others.length} expectations in legacy encodings (${others.sort().join(", ")}): ` +
        "a document's encoding, which a function has none of",
    ],
    vectors: vectors.map((vector) => ({
      name: show(vector.input),
      observe: { input: vector.input },
      check: (observed: Outcome<string>) =>
        differences(
          { search: `?${vector.output["utf-8"]}` },
          { search: "error" in observed ? "threw" : observed.value },
        ),
    })),
  };
}

type PatternArgs = Array<string | Record<string, unknown>>;
interface PatternVector {
  pattern: PatternArgs;
  inputs?: PatternArgs;
  expected_obj?: "error" | Record<string, string>;
  expected_match?: "error" | null | (Record<string, unknown> & { inputs?: PatternArgs });
  exactly_empty_components?: string[];
}
interface PatternSeen {
  made: Outcome<Record<string, string>>;
  base?: Outcome<Parts> | null;
  test?: Outcome<boolean>;
  exec?: Outcome<(Record<string, { input: string; groups: unknown }> & { inputs: PatternArgs }) | null>;
}
/** Which components make a later one a wildcard rather than the base URL's (urlpatterntests.js). */
const EARLIER: Record<string, string[]> = {
  protocol: [],
  username: [],
  password: [],
  hostname: ["protocol"],
  port: ["protocol", "hostname"],
  pathname: ["protocol", "hostname", "port"],
  search: ["protocol", "hostname", "port", "pathname"],
  hash: ["protocol", "hostname", "port", "pathname", "search"],
};

/** A component's pattern when the vector does not say it: echoed, a wildcard, or the base URL's. */
function impliedPattern(vector: PatternVector, component: string, base: Parts | null): string {
  const init = typeof vector.pattern[0] === "object" ? vector.pattern[0] : null;
  if (vector.exactly_empty_components?.includes(component)) return "";
  if (init?.[component]) return init[component] as string;
  if (init && EARLIER[component]!.some((earlier) => earlier in init)) return "*";
  if (base && component !== "username" && component !== "password") {
    const value = base[component as keyof Parts];
    if (component === "protocol") return value.slice(0, -1);
    return component === "search" || component === "hash" ? value.slice(1) : value;
  }
  return "*";
}

function checkPattern(vector: PatternVector, seen: PatternSeen): string[] {
  if (vector.expected_obj === "error") return threw(seen.made);
  if ("error" in seen.made) return [`constructor threw ${seen.made.error}`];
  const base = seen.base && "value" in seen.base ? seen.base.value : null;
  const made = seen.made.value;
  const wanted = vector.expected_obj ?? {};
  const problems = COMPONENTS.flatMap((c) => {
    const expected = wanted[c] ?? impliedPattern(vector, c, base);
    return made[c] === expected ? [] : [`${c} ${show(made[c])}, expected ${show(expected)}`];
  });
  if (!vector.inputs) return problems;
  const { test, exec } = seen as Required<PatternSeen>;
  if (vector.expected_match === "error") return [...problems, ...threw(test), ...threw(exec)];
  if ("error" in test || "error" in exec) return [...problems, `test()/exec() threw`];
  if (test.value !== !!vector.expected_match) problems.push(`test() ${test.value}`);
  const expected = vector.expected_match;
  if (!expected || typeof expected !== "object") {
    return exec.value === null ? problems : [...problems, "exec() matched"];
  }
  if (exec.value === null) return [...problems, "exec() did not match"];
  return [...problems, ...checkMatch(vector, expected, exec.value)];
}

function checkMatch(
  vector: PatternVector,
  expected: Record<string, unknown> & { inputs?: PatternArgs },
  result: Record<string, { input: string; groups: unknown }> & { inputs: PatternArgs },
): string[] {
  const problems: string[] = [];
  const inputs = expected.inputs ?? vector.inputs!;
  if (result.inputs.length !== inputs.length) problems.push(`exec().inputs ${show(result.inputs)}`);
  result.inputs.forEach((input, i) => {
    const same =
      typeof input === "string"
        ? input === inputs[i]
        : COMPONENTS.every((c) => input[c] === (inputs[i] as Record<string, unknown> | undefined)?.[c]);
    if (!same) problems.push(`exec().inputs[${i}] ${show(input)}`);
  });
  for (const c of COMPONENTS) {
    const empty = vector.exactly_empty_components?.includes(c);
    const wanted = expected[c] ?? { input: "", groups: empty ? {} : { 0: "" } };
    if (!isDeepStrictEqual(result[c], wanted))
      problems.push(`exec().${c} ${show(result[c])}, expected ${show(wanted)}`);
  }
  return problems;
}

/** urlpatterntests: the constructor, each component's pattern string, then `test()` and `exec()`. */
function patternFile(): WptFile {
  const vectors = read("urlpatterntestdata.json") as PatternVector[];
  return {
    file: "urlpatterntestdata.json",
    kind: "pattern",
    skipped: [],
    vectors: vectors.map((vector) => ({
      name: `${show(vector.pattern)}${vector.inputs ? ` with ${show(vector.inputs)}` : ""}`,
      observe: { pattern: vector.pattern, inputs: vector.inputs },
      check: (seen: PatternSeen) => checkPattern(vector, seen),
    })),
  };
}

/** Every file, in the order the README's table lists them. */
export const wptFiles = (): WptFile[] => [
  urlFile(),
  settersFile(),
  toasciiFile(),
  percentFile(),
  patternFile(),
];

/** Runs one file's vectors through `observe` (in batches of `batch`) and judges each. */
export async function runWptFile(
  file: WptFile,
  observe: (kind: WptFile["kind"], cases: unknown[]) => Promise<unknown[]>,
  batch = 100,
): Promise<FileResult> {
  const failures: string[] = [];
  for (let start = 0; start < file.vectors.length; start += batch) {
    const vectors = file.vectors.slice(start, start + batch);
    const seen = await observe(
      file.kind,
      vectors.map((vector) => vector.observe),
    );
    vectors.forEach((vector, i) => {
      const problems = vector.check(seen[i] as never);
      if (problems.length > 0) failures.push(`${vector.name}: ${problems.join("; ")}`);
    });
  }
  return {
    file: file.file,
    vectors: file.vectors.length,
    passed: file.vectors.length - failures.length,
    failures,
  };
}
