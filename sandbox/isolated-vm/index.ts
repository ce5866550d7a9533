import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import type IsolatedVM from "isolated-vm";

/**
 * isolated-vm builds against one line of Node.js's V8 at a time, so each line gets its own
 * major: npm installs the one that fits the Node.js that runs `npm ci` (the packages beside
 * this file, README.md here), and this module loads it. The majors' APIs are the same (their
 * type declarations are identical), so the rest of the house imports `ivm` from here and never
 * knows which it got.
 */
export const ISOLATED_VM_BY_NODE: readonly { node: number; name: string }[] = [
  { node: 24, name: "isolated-vm-7" },
  { node: 22, name: "isolated-vm-6" },
  { node: 20, name: "isolated-vm-5" },
];

/** The isolated-vm package (an npm alias) that fits Node.js `version` ("24.11.1"). */
export function isolatedVmFor(version: string): string {
  const major = Number.parseInt(version, 10);
  return (ISOLATED_VM_BY_NODE.find((line) => major >= line.node) ?? ISOLATED_VM_BY_NODE.at(-1)!).name;
}

function load(): typeof IsolatedVM {
  const name = isolatedVmFor(process.versions.node);
  try {
    return createRequire(import.meta.url)(name) as typeof IsolatedVM;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new Error(
      `isolated-vm for Node.js ${process.versions.node} (${name}) did not load: ${reason}. ` +
        "npm installs the one that fits the Node.js that runs `npm ci`: run `npm ci` again with this Node.js " +
        `(on Node.js 20 it compiles isolated-vm, which needs python3, make and g++, and Node's headers${localHeadersHint()}; ` +
        "see sandbox/isolated-vm/README.md).",
      { cause: error },
    );
  }
}

/**
 * node-gyp downloads Node's headers from nodejs.org unless npm's `nodedir` names a copy: offline,
 * that download is what fails. Most installs carry the headers beside the binary.
 */
function localHeadersHint(): string {
  const prefix = resolve(dirname(process.execPath), "..");
  if (!existsSync(join(prefix, "include", "node", "node.h")))
    return ", which node-gyp downloads from nodejs.org";
  return `, which node-gyp downloads from nodejs.org unless told where they are: this Node.js has them, so \`npm_config_nodedir=${prefix} npm ci\` builds offline`;
}

/** isolated-vm's types (`IsolatedVM.Isolate`, `IsolatedVM.Reference<T>`…), the same for every major. */
export type { IsolatedVM };

const ivm = load();
export default ivm;
