import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { randomBase62 } from "../../core/index.ts";
import { meterProcess, startDbMeter } from "./db-meter.ts";
import { UNTHROTTLED_RATE_LIMITS } from "./limits.ts";
import { startListening, type ListeningProcess } from "./processes.ts";

const OWN_BIN = fileURLToPath(new URL("../../bin/tessera.js", import.meta.url));

/**
 * The `tessera` the benchmarks start: this checkout's, or another's when `BENCH_TESSERA`
 * names one (`BENCH_TESSERA=../old npm run bench -- list-overdue`): the same harness,
 * the same load, an older tree's server, for measuring a change side by side.
 */
function tesseraBin(checkout: string | undefined): string {
  return checkout ? join(checkout, "bin", "tessera.js") : OWN_BIN;
}

/**
 * The benchmarks' own database, never the tests' (CI recreates that one): the
 * 1,000,000-invoice organization is seeded once and reused. `BENCH_DATABASE_URL`
 * overrides it; the default database is created when missing.
 */
export async function benchDatabaseUrl(): Promise<string> {
  const given = process.env.BENCH_DATABASE_URL;
  if (given) return given;
  const admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`SELECT 1 AS found FROM pg_database WHERE datname = 'tessera_bench'`;
    if (!row) await admin.unsafe("CREATE DATABASE tessera_bench");
  } finally {
    await admin.end();
  }
  return "postgres://postgres@127.0.0.1:5432/tessera_bench";
}

/** How to start a benchmark's Tessera server; every field is optional. */
export interface TesseraApiOptions {
  /** Environment beside the defaults (database, scratch data dir, unthrottled rate limits). */
  env?: Record<string, string>;
  /** Node flags before the CLI (`--cpu-prof`); `--no-node-snapshot` is always there. */
  nodeArgs?: string[];
  /** Another checkout's server (`BENCH_TESSERA` when not given). */
  checkout?: string;
  /** The Node.js binary (this process's when not given): Node 20 and Node 24 side by side. */
  node?: string;
}

/**
 * `tessera serve --role api` in a child process on PostgreSQL, with rate limits
 * that count but never refuse, on a scratch data dir removed at stop. With
 * `BENCH_DB_METER=1` its database connections go through a counting proxy
 * (db-meter.ts), and every wrk run that observes it also reports statements and
 * PostgreSQL CPU per request (the proxy's hop slows each round trip a little).
 */
export async function startTesseraApi(
  databaseUrl: string,
  {
    env = {},
    nodeArgs = [],
    checkout = process.env.BENCH_TESSERA,
    node = process.execPath,
  }: TesseraApiOptions = {},
): Promise<ListeningProcess> {
  const scratch = mkdtempSync(join(tmpdir(), "tessera-bench-"));
  const meter = process.env.BENCH_DB_METER === "1" ? await startDbMeter(databaseUrl) : undefined;
  try {
    const server = await startListening(
      [node, "--no-node-snapshot", ...nodeArgs, tesseraBin(checkout), "serve", "--role", "api"],
      {
        DATABASE_URL: meter?.url ?? databaseUrl,
        TESSERA_SECRET: randomBase62(40),
        TESSERA_DATA_DIR: join(scratch, "data"),
        HOST: "127.0.0.1",
        PORT: "0",
        LOG_LEVEL: "warn",
        TESSERA_RATE_LIMITS: UNTHROTTLED_RATE_LIMITS,
        // A checkout from before bin/tessera.js named its own tsconfig would compile with this one's.
        ...(checkout ? { TSX_TSCONFIG_PATH: join(checkout, "tsconfig.json") } : {}),
        ...env,
      },
    );
    if (meter) meterProcess(server.pid, meter);
    return {
      ...server,
      stop: async () => {
        await server.stop();
        await meter?.close();
        rmSync(scratch, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await meter?.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}
