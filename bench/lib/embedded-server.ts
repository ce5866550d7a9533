import { fileURLToPath } from "node:url";
import { UNTHROTTLED_RATE_LIMITS } from "./limits.ts";
import { startListening, type ListeningProcess } from "./processes.ts";

const BIN = fileURLToPath(new URL("../../bin/tessera.js", import.meta.url));

/**
 * `tessera serve --role api` on the embedded store (PGlite in the server's own process) in
 * `dataDir`, with rate limits that count but never refuse, as a user's first `tessera serve`
 * runs it. PGlite is one process's: seed the data dir before, never while it runs. Nothing of
 * this process's environment points it at PostgreSQL or Redis (DATABASE_URL, REDIS_URL,
 * TESSERA_SECRET and every other TESSERA_ variable are left out), as the Python client's
 * tests start theirs (clients/python/tests/conftest.py).
 */
export function startEmbeddedTessera(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ListeningProcess> {
  const unset: Record<string, undefined> = { DATABASE_URL: undefined, REDIS_URL: undefined };
  for (const name of Object.keys(process.env)) if (name.startsWith("TESSERA_")) unset[name] = undefined;
  return startListening([process.execPath, "--no-node-snapshot", BIN, "serve", "--role", "api"], {
    // spawn() leaves out a variable whose value is undefined: these reach the server unset.
    ...(unset as unknown as Record<string, string>),
    TESSERA_DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "warn",
    TESSERA_RATE_LIMITS: UNTHROTTLED_RATE_LIMITS,
    ...env,
  });
}
