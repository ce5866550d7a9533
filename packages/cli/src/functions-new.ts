import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ScaffoldError,
  scaffoldFunction as scaffold,
  type ScaffoldOptions,
} from "../../../cli/functions-new.ts";

/**
 * cli/functions-new.ts for the bundle (scripts/build-cli.ts puts it in place for functions-command.ts):
 * the SDK this CLI goes with is the `@tessera/sdk` package installed beside it, found as Node finds
 * a package (`node_modules/@tessera/sdk` in this file's folder or above), not a checkout's `sdk/`.
 */
export { ScaffoldError };

export function scaffoldFunction(options: ScaffoldOptions) {
  const sdkDir = installedSdk();
  return scaffold({ ...(sdkDir ? { sdkDir } : {}), ...options });
}

function installedSdk(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", "@tessera", "sdk");
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
