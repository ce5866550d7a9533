/**
 * What an isolate runs: a guest program, and the two shapes it comes in.
 *
 * - **A module** (what deploys compile since ES modules came to the isolate): one ES module, every
 *   import of the function bundled into it, evaluated with V8's module machinery, so it is strict,
 *   its top level may `await`, and its exports are its namespace. Its last line is
 *   `EVALUATED_TRAILER`: an export the module initializes only when its top level has finished, so
 *   the platform can tell a top level that is still awaiting from one that is done.
 * - **A script** that sets `globalThis.__tessera_module` (what deploys compiled before, still stored
 *   with older versions; and the hostile guest fixtures the tests run).
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
