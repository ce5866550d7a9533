import { runInNewContext } from "node:vm";
import { EVALUATED_TRAILER, MODULE_GLOBAL } from "../../sandbox/index.ts";

/**
 * A compiled function (an ES module, runtime/compile.ts) as a strict script that sets
 * `globalThis.__tessera_module` to its exports, for node:vm, whose modules need a flag
 * (`--experimental-vm-modules`). esbuild ends a bundle with one `export { a as default, b };`:
 * that statement becomes the assignment. For modules without top-level await (a script
 * cannot await); the isolate runs the module itself.
 */
export function moduleAsScript(code: string): string {
  const body = code.endsWith(EVALUATED_TRAILER) ? code.slice(0, -EVALUATED_TRAILER.length) : code;
  const exports = /\nexport\s*\{([^}]*)\};?\s*$/.exec(body);
  if (!exports) throw new Error("the bundle does not end with esbuild's export statement");
  const pairs = exports[1]!
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [local, exported = local] = part.split(/\s+as\s+/);
      // An identifier (escapes and all) or a string literal: either is a property key as written.
      return `${exported}: ${local}`;
    });
  return `"use strict";\n${body.slice(0, exports.index)}\nglobalThis.${MODULE_GLOBAL} = { ${pairs.join(", ")} };\n`;
}

/** Runs a compiled function in a fresh node:vm context and returns its exports. */
export function evaluateModule(code: string, globals: Record<string, unknown> = {}): Record<string, unknown> {
  const sandbox: Record<string, unknown> = { ...globals };
  runInNewContext(moduleAsScript(code), sandbox);
  return sandbox[MODULE_GLOBAL] as Record<string, unknown>;
}
