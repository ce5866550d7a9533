import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { guardedBuild } from "./compile-guard.ts";

/**
 * The ES2024–2026 built-ins an older V8 lacks (Node 20: V8 11.3; Node 22: V8 12.4), from core-js's
 * global modules, put ahead of a function's own code when that code names them, as Babel's
 * `useBuiltIns: "usage"` does. Only the functions that use them pay: in the platform every idle
 * isolate would hold them (~0.7 MB of heap each on Node 20, measured 2026-11-28), and the platform's
 * snapshot mangles the one-character strings core-js makes while loading.
 *
 * core-js tests each feature when the function loads and installs its own only where V8's is
 * missing or fails a check of the current spec, so a bundle made on Node 20 is right on Node 24
 * too (where it installs nearly nothing). What it installs is non-enumerable, with the spec's
 * `name` and `length`, as V8's own are. The table of what a function gets on each line is in
 * docs/functions.md ("JavaScript built-ins by Node.js line").
 *
 * `Temporal` comes the same way, from FullCalendar's `temporal-polyfill` (polyfills/temporal.ts): no
 * line's V8 ships it unflagged (each has an unfinished one behind `--harmony-temporal`). Measured on
 * Node 20 in a fresh isolate, 2026-11-28, against `@js-temporal/polyfill` 0.5.1 (the champions') in
 * brackets: 69.4 kB of bundle, 25 kB gzipped (152.7 kB, 44 kB); 340 kB of heap kept after loading,
 * 430 kB once a time zone was used, after a GC (364 kB, 595 kB); 4 ms to load (6–10 ms), 2.5 ms for a
 * first call that reads a time zone (4–8 ms), 12–19 ms in a process's first isolate (ICU's data).
 *
 * Left out because no polyfill is faithful here: `ArrayBuffer.prototype.transfer` (nothing else
 * detaches a buffer: Node 20's V8 has it behind a flag the sandbox sets, sandbox/v8-flags.ts),
 * `Error.isError` (core-js's is marked a sham), `Float16Array` (core-js has none). `using` is syntax: the deploy compiler lowers it (target ES2022) onto `Symbol.dispose`.
 */

/** The module that stands for Temporal (polyfills/temporal.ts); every other one is core-js's. */
const TEMPORAL = "temporal";

/**
 * What a function's code names → the modules it then gets: core-js's (under `core-js/modules/`), or
 * `TEMPORAL`.
 */
const FEATURES: ReadonlyArray<{ uses: RegExp; modules: readonly string[] }> = [
  { uses: /\bgroupBy\b/, modules: ["es.object.group-by", "es.map.group-by"] },
  { uses: /\bwithResolvers\b/, modules: ["es.promise.with-resolvers"] },
  { uses: /\bPromise\s*\.\s*try\b/, modules: ["es.promise.try"] },
  { uses: /\.\s*detached\b/, modules: ["es.array-buffer.detached"] },
  {
    uses: /\.\s*(?:union|intersection|difference|symmetricDifference|isSubsetOf|isSupersetOf|isDisjointFrom)\b/,
    modules: [
      "es.set.union.v2",
      "es.set.intersection.v2",
      "es.set.difference.v2",
      "es.set.symmetric-difference.v2",
      "es.set.is-subset-of.v2",
      "es.set.is-superset-of.v2",
      "es.set.is-disjoint-from.v2",
    ],
  },
  { uses: /\bfromAsync\b/, modules: ["es.array.from-async"] },
  {
    // The helpers are named like Array's methods: `Iterator`, the ones arrays lack, or an
    // iterator's own methods called on `.values()`, `.keys()` or `.entries()`.
    uses: /\bIterator\b|\.\s*(?:toArray|take|drop)\s*\(|\.(?:values|keys|entries)\(\)\s*\.\s*(?:map|filter|flatMap|reduce|forEach|some|every|find)\b/,
    modules: [
      "es.iterator.constructor",
      "es.iterator.from",
      "es.iterator.to-array",
      "es.iterator.map",
      "es.iterator.filter",
      "es.iterator.flat-map",
      "es.iterator.reduce",
      "es.iterator.for-each",
      "es.iterator.some",
      "es.iterator.every",
      "es.iterator.find",
      "es.iterator.take",
      "es.iterator.drop",
    ],
  },
  {
    // esbuild lowers `using` to its `__using` helper, which reads `Symbol.dispose`.
    uses: /\b(?:dispose|asyncDispose|DisposableStack|AsyncDisposableStack|SuppressedError|__using)\b/,
    modules: [
      "es.symbol.dispose",
      "es.symbol.async-dispose",
      "es.suppressed-error.constructor",
      "es.disposable-stack.constructor",
      "es.async-disposable-stack.constructor",
      "es.iterator.dispose",
    ],
  },
  { uses: /\bRegExp\s*\.\s*escape\b/, modules: ["es.regexp.escape"] },
  {
    uses: /\b(?:fromBase64|toBase64|fromHex|toHex|setFromBase64|setFromHex)\b/,
    modules: [
      "es.uint8-array.from-base64",
      "es.uint8-array.from-hex",
      "es.uint8-array.set-from-base64",
      "es.uint8-array.set-from-hex",
      "es.uint8-array.to-base64",
      "es.uint8-array.to-hex",
    ],
  },
  { uses: /\bsumPrecise\b/, modules: ["es.math.sum-precise"] },
  { uses: /\bTemporal\b|\btoTemporalInstant\b/, modules: [TEMPORAL] },
];

/** The modules a function's bundled code asks for (none for most functions). */
export function polyfillsFor(code: string): string[] {
  return FEATURES.filter((feature) => feature.uses.test(code)).flatMap((feature) => feature.modules);
}

/**
 * The script that installs `modules`, to run before the function's own: the dispose symbols, then
 * core-js's modules in order, then what core-js cannot do here (guest.ts); then Temporal. A function
 * that asks only for Temporal gets Temporal alone. Bundled once per set of modules and process: a
 * few sets cover every function.
 */
export function polyfillScript(modules: readonly string[]): Promise<string> {
  const key = modules.join(",");
  let built = BUILT.get(key);
  if (!built) {
    built = buildScript(modules);
    BUILT.set(key, built);
    // A failed build is not kept: the next deploy tries again.
    built.catch(() => BUILT.delete(key));
  }
  return built;
}

/** Scripts built so far, by their modules (a cache filled on use; nothing is built at import). */
const BUILT = new Map<string, Promise<string>>();

async function buildScript(modules: readonly string[]): Promise<string> {
  const here = join(dirname(fileURLToPath(import.meta.url)), "polyfills");
  const coreJs = modules.filter((module) => module !== TEMPORAL);
  const entry = [
    ...(coreJs.length > 0 ? coreJsEntry(join(here, "guest.ts"), coreJs) : []),
    ...(modules.includes(TEMPORAL)
      ? [`require(${JSON.stringify(join(here, "temporal.ts"))}).installTemporal();`]
      : []),
  ].join("\n");
  const result = await guardedBuild({
    stdin: { contents: entry, resolveDir: here, sourcefile: "tessera-polyfills.js", loader: "js" },
    bundle: true,
    write: false,
    format: "iife",
    platform: "neutral",
    mainFields: ["main"],
    target: "es2022",
    charset: "ascii",
    minify: true,
    logLevel: "silent",
  });
  return result.outputFiles![0]!.text;
}

function coreJsEntry(guest: string, modules: readonly string[]): string[] {
  return [
    `const guest = require(${JSON.stringify(guest)});`,
    "guest.defineDisposeSymbols();",
    ...modules.map((module) => `require(${JSON.stringify(`core-js/modules/${module}.js`)});`),
    "guest.finishPolyfills();",
  ];
}
