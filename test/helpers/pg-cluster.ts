import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports.ts";

const execFileAsync = promisify(execFile);

/**
 * A private PostgreSQL cluster for fault tests that restart the database: never the
 * machine's shared server. Built with the system's initdb and pg_ctl (as the
 * `postgres` user when running as root, which initdb refuses), on a free port in a
 * temporary folder, with fsync off: it is thrown away.
 */
export interface PgCluster {
  url: string;
  /** Stops the server (fast: connections are cut), waits `downMs`, starts it again. */
  restart(downMs?: number): Promise<void>;
  destroy(): void;
}

const ROOT = "/usr/lib/postgresql";

/** The newest installed server binaries, or undefined when there are none. */
export function postgresBinDir(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((version) => existsSync(join(ROOT, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(ROOT, versions[0], "bin") : undefined;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`no PostgreSQL server binaries under ${ROOT}`);
  const dir = mkdtempSync(join(tmpdir(), "tessera-pg-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  const argv = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
  const run = (tool: string, args: string[]) =>
    execFileSync(...argv(tool, args), { stdio: "pipe", timeout: 60_000 });
  // The test's own receiver lives in this process: restarts must not block its event loop.
  const runAsync = (tool: string, args: string[]) => execFileAsync(...argv(tool, args), { timeout: 60_000 });
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const startArgs = ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"];
  const stopArgs = (mode: string) => ["-D", data, "-m", mode, "-w", "stop"];
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  run("pg_ctl", startArgs);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart(downMs = 1_000) {
      await runAsync("pg_ctl", stopArgs("fast"));
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await runAsync("pg_ctl", startArgs);
    },
    destroy() {
      try {
        run("pg_ctl", stopArgs("immediate"));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
