import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";

/**
 * `$TESSERA_DATA_DIR/sandbox.json` (mode 0600): the keys `functions serve` minted for the local
 * organizations it served (functions-remote.ts writes it), `{"keys": {org_id: secret}}`.
 */
export const SANDBOX_KEYS_FILE = "sandbox.json";

const SandboxFileSchema = z.object({ keys: z.record(z.string(), z.string()) });

/** The file's keys by organization id; an unreadable file is as if none. */
export function readSandboxKeys(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  try {
    return SandboxFileSchema.parse(JSON.parse(readFileSync(file, "utf8"))).keys;
  } catch {
    return {};
  }
}
