/**
 * What an isolate runs: a guest program, and the two shapes it comes in.
 *
 * - **A module** (what deploys compile since ES modules came to the isolate): one ES module, every
 *   import of the function bundled into it, evaluated with V8's module machinery, so it is strict,
 *   its top level may `await`, and its exports are its namespace. Its last line is
 *   `EVALUATED_TRAILER`: an export the module initializes only when its top level has finished, so
 *   the platform can tell a top level that is still awaiting from one that is done.
 * - **A script** that sets `globalThis.__tessera_module` to the exports: what deploys compile when
 *   the top level does not await (`moduleAsScript`: strict, as a module is, and served by V8's code
 *   cache, which isolated-vm does not consume for modules), what older deploys stored (not strict),
 *   and the hostile guest fixtures the tests run.
 */
export interface GuestProgram {
  code: string;
  /** Shown in stack traces, e.g. `fn_3kTq@v2.js`. */
  filename: string;
  /** V8 code cache this server produced for `code`; never taken from a tenant (it is machine code). */
  cachedData?: Uint8Array;
}

/** The global a program's module namespace is found under (a script sets it itself). */
export const MODULE_GLOBAL = "__tessera_module";

/** The export a module initializes last (guest/serve.ts reads it by the same name). */
export const EVALUATED_EXPORT = "__tessera_evaluated";

/** Appended to every compiled module; its presence at the end is what makes a program a module. */
export const EVALUATED_TRAILER = `\nexport const ${EVALUATED_EXPORT} = true;\n`;

/** True for a program compiled as an ES module, false for a script (see above). */
export function isModuleProgram(code: string): boolean {
  return code.endsWith(EVALUATED_TRAILER);
}

/**
 * A bundle that is one ES module without top-level await (esbuild's `esm` output: its exports in one
 * `export { a as default, b };` at the end, nothing imported) as the equivalent script: its body in
 * a strict function, called with `this` undefined as a module's top level has it, which returns the
 * exports for `MODULE_GLOBAL`. Undefined when the bundle does not end so (the caller keeps it a module).
 *
 * @example
 *   moduleAsScript('var x = 1;\nexport {\n  x as default\n};\n');
 *   // 'var __tessera_module = (function () {\n"use strict";\nvar x = 1;\nreturn { default: x };\n})();\n'
 */
export function moduleAsScript(bundle: string): string | undefined {
  const clause = EXPORT_CLAUSE.exec(bundle);
  const body = clause ? bundle.slice(0, clause.index) : bundle;
  // Any other line that starts so might be an export or an import, which a function cannot hold
  // (or a line of a template literal: kept a module, which is right either way).
  if (/^(?:export|import)\b/m.test(body)) return undefined;
  const pairs = (clause?.[1] ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [local, exported = local] = part.split(/\s+as\s+/);
      // An identifier (escapes and all) or a string literal: either is a property key as written.
      return `${exported}: ${local}`;
    });
  return `var ${MODULE_GLOBAL} = (function () {\n"use strict";\n${body}\nreturn {${pairs.length > 0 ? ` ${pairs.join(", ")} ` : ""}};\n})();\n`;
}

/** esbuild's one export statement, last in the bundle. */
const EXPORT_CLAUSE = /(?:^|\n)export\s*\{([^}]*)\};?\s*$/;
