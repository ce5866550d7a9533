/**
 * What an isolate runs: a guest program, one script that sets `globalThis.__tessera_module` to the
 * function's exports, or declares it and hands its top level's promise to `TOP_LEVEL_HOOK`.
 *
 * A deploy bundles the function's modules into one ES module (esbuild `esm`, runtime/compile.ts)
 * and `moduleAsScript` makes it that script: its body in a strict function called with `this`
 * undefined, as a module's top level has it, an async one when the top level awaits. A script, not
 * a module, because isolated-vm (5, 6 and 7) compiles a module without consuming the V8 code cache
 * it is handed: a 740 kB bundle started in 30 ms as a module and in 13 ms as a cached script
 * (bench/HISTORY.md, 2026-11-28). Older deploys stored a script that sets the global itself (not
 * strict), and the hostile guest fixtures the tests run are such scripts too: both still run.
 */
export interface GuestProgram {
  code: string;
  /** Shown in stack traces, e.g. `fn_3kTq@v2.js`. */
  filename: string;
  /** V8 code cache this server produced for `code`; never taken from a tenant (it is machine code). */
  cachedData?: Uint8Array;
}

/** The global a program's exports are found under. */
export const MODULE_GLOBAL = "__tessera_module";

/**
 * The platform's function a program whose top level awaits hands that top level's promise to
 * (guest/serve.ts `awaitTopLevel`): the exports once it settles, or why it failed or never did.
 */
export const TOP_LEVEL_HOOK = "__tessera_top_level";

/**
 * A bundle that is one ES module (esbuild's `esm` output: its exports in one `export { a as
 * default, b };` at the end, every import bundled) as the script that behaves as it would.
 *
 * @example
 *   moduleAsScript('var x = 1;\nexport {\n  x as default\n};\n', false);
 *   // 'var __tessera_module = (function () {\n"use strict";\nvar x = 1;\nreturn { default: x };\n})();\n'
 *   moduleAsScript('var x = await f();\nexport {\n  x as default\n};\n', true);
 *   // 'var __tessera_module = __tessera_top_level((async function () {\n"use strict";\nvar x = await f();\nreturn { default: x };\n})());\n'
 */
export function moduleAsScript(bundle: string, topLevelAwait: boolean): string {
  const clause = EXPORT_CLAUSE.exec(bundle);
  const body = clause ? bundle.slice(0, clause.index) : bundle;
  const pairs = (clause?.[1] ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [local, exported = local] = part.split(/\s+as\s+/);
      // An identifier (escapes and all) or a string literal: either is a property key as written.
      return `${exported}: ${local}`;
    });
  const exports = `{${pairs.length > 0 ? ` ${pairs.join(", ")} ` : ""}}`;
  const run = `function () {\n"use strict";\n${body}\nreturn ${exports};\n}`;
  return topLevelAwait
    ? `var ${MODULE_GLOBAL} = ${TOP_LEVEL_HOOK}((async ${run})());\n`
    : `var ${MODULE_GLOBAL} = (${run})();\n`;
}

/** esbuild's one export statement, last in the bundle. */
const EXPORT_CLAUSE = /(?:^|\n)export\s*\{([^}]*)\};?\s*$/;
