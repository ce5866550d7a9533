import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase62, safeEqual } from "../core/index.ts";

/**
 * Files the embedded deployment keeps beside its database: the secret for data at
 * rest, the operator token, and a note of the running server so the CLI can go
 * through it instead of opening the store a second time.
 */
export interface DataDir {
  readonly path: string;
  /** TESSERA_SECRET: read from `secret`, generated on first use. */
  secret(): string;
  /** The `secret` file's value, without making one. */
  existingSecret(): string | undefined;
  /**
   * Keeps `secret` as this dir's secret (a restore into a new data dir, under the archive's
   * secret); refuses when the dir already holds another one.
   */
  adoptSecret(secret: string): void;
  adminToken(): string;
  runningServer(): RunningServer | undefined;
  markRunning(url: string, launcher?: ServerLauncher): void;
  clearRunning(): void;
}

/**
 * How to run the server package's own CLI (`node --no-node-snapshot BIN …`): the Node.js its
 * isolated-vm was built for and its `bin/tessera.js`. The standalone `@tessera/cli` runs
 * `functions serve` through it, as `supabase functions serve` runs in the stack `supabase start` made.
 */
export interface ServerLauncher {
  node: string;
  bin: string;
}

/** `server.json`: the server running on this data dir (a note older servers wrote has no launcher). */
export interface RunningServer {
  url: string;
  pid: number;
  launcher?: ServerLauncher | undefined;
}

export function openDataDir(path: string): DataDir {
  const file = (name: string) => join(path, name);
  const readOrCreate = (name: string, make: () => string) => {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    if (existsSync(file(name))) return readFileSync(file(name), "utf8").trim();
    const value = make();
    writeFileSync(file(name), value + "\n", { mode: 0o600, flag: "wx" });
    return value;
  };
  return {
    path,
    secret: () => readOrCreate("secret", () => randomBase62(48)),
    existingSecret: () =>
      existsSync(file("secret")) ? readFileSync(file("secret"), "utf8").trim() : undefined,
    adoptSecret(secret) {
      if (
        !safeEqual(
          readOrCreate("secret", () => secret),
          secret,
        )
      ) {
        throw new Error(`${path} already keeps another secret: restore into a new data dir`);
      }
    },
    adminToken: () => readOrCreate("admin.token", () => `tsa_${randomBase62(40)}`),
    runningServer() {
      if (!existsSync(file("server.json"))) return undefined;
      try {
        const info = JSON.parse(readFileSync(file("server.json"), "utf8")) as RunningServer;
        process.kill(info.pid, 0); // throws when no such process: a stale note
        return info;
      } catch {
        return undefined;
      }
    },
    markRunning(url, launcher) {
      const note: RunningServer = { url, pid: process.pid, launcher };
      writeFileSync(file("server.json"), JSON.stringify(note) + "\n", { mode: 0o600 });
    },
    clearRunning() {
      rmSync(file("server.json"), { force: true });
    },
  };
}
