import { fileURLToPath } from "node:url";
import { createApiKey, createOrganization } from "../engines/index.ts";
import { createPostgresStore, migrate } from "../store/index.ts";
import { FUNCTION_MODULE } from "./lib/invoke-function.ts";
import type { LoadReport } from "./lib/load.ts";
import { NODE_TS, runLoad, startListening, type ListeningProcess } from "./lib/processes.ts";
import {
  numberFlag,
  target,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
  type ResultRow,
} from "./lib/report.ts";
import { loadStats } from "./lib/stats.ts";
import { benchDatabaseUrl, startTesseraApi } from "./lib/tessera-server.ts";
import { startWorkerd } from "./lib/workerd-server.ts";

const SERVERS = fileURLToPath(new URL("./lib/invoke-servers.ts", import.meta.url));
const SIZES = {
  full: { warmupS: 2, durationS: 10, rounds: 5 },
  tiny: { warmupS: 0.2, durationS: 0.6, rounds: 1 },
};
/** Warm-up of each later slice: new connections, a JIT already warm. */
const SLICE_WARMUP_MS = 300;
const PATH = "/v1/functions/bench/invoke/42";
const EXPECTED_BODY = JSON.stringify({ ok: true, n: 42 });

type Subject = "hono" | "workerd" | "edge-runtime" | "tessera";
const LABELS: Record<Subject, string> = {
  hono: "anchor: bare Hono on Node",
  workerd: "workerd (Cloudflare)",
  "edge-runtime": "edge-runtime (Vercel)",
  tessera: "tessera: deployed function",
};

interface Started {
  server: ListeningProcess;
  headers?: Record<string, string>;
}

/**
 * A trivial JSON function (`{ ok: true, n: 42 }` from the path) at 32 connections,
 * served by a bare Hono handler on Node (the anchor), by Cloudflare's workerd, by
 * Vercel's edge-runtime, and by Tessera: the full stack of `tessera serve --role
 * api` (auth with a `functions:read` key, rate limits counting but never refusing,
 * the function deployed through `POST /v1/functions` and invoked on
 * `/v1/functions/bench/invoke/…`). Until the function runtime is in, Tessera
 * answers 404 there and its row is reported as not available.
 *
 * The four listen side by side and are loaded in turns, `--rounds` slices of the
 * duration each (5 by default): run one after another, each had the machine as it
 * happened to be during its own 12 s, and one subject's ratio to another moved by
 * ±30 % from run to run on a shared machine.
 */
export const functionInvoke: Benchmark = {
  name: "function-invoke",
  summary: "a trivial JSON function: Tessera vs bare Hono, workerd and edge-runtime",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const connections = numberFlag(options.flags, "connections", 32);
    const warmupMs = numberFlag(options.flags, "warmup", size.warmupS) * 1000;
    const durationMs = numberFlag(options.flags, "duration", size.durationS) * 1000;
    const rounds = Math.max(1, Math.round(numberFlag(options.flags, "rounds", size.rounds)));
    const reports: Partial<Record<Subject, LoadReport>> = {};
    const running: Array<{ subject: Subject; server: ListeningProcess; headers?: Record<string, string> }> =
      [];
    let unavailable: string | undefined;
    try {
      // All four listen at once and take turns: the machine's speed drifts over a minute here, and
      // slices in rounds spread that drift over every subject alike instead of favouring one.
      for (const subject of ["hono", "workerd", "edge-runtime", "tessera"] as const) {
        const started = await start(subject);
        if ("unavailable" in started) {
          unavailable = started.unavailable;
          options.log(`  ${subject}: not available (${unavailable})`);
          await started.server.stop();
          continue;
        }
        running.push({ subject, ...started });
        await expectAnswer(started.server.url, started.headers);
      }
      options.log(
        `  ${running.map((r) => r.subject).join(", ")}: ${rounds} round(s) of ${(durationMs / rounds / 1000).toFixed(1)} s each at ${connections} connections`,
      );
      for (let round = 0; round < rounds; round++) {
        for (const { subject, server, headers } of running) {
          const slice = await runLoad({
            url: server.url + PATH,
            headers,
            connections,
            warmupMs: round === 0 ? warmupMs : Math.min(warmupMs, SLICE_WARMUP_MS),
            durationMs: durationMs / rounds,
            observePid: server.pid,
          });
          reports[subject] = reports[subject] ? mergeReports(reports[subject], slice) : slice;
        }
      }
    } finally {
      for (const { server } of running) await server.stop();
    }
    return result(reports, { connections, warmupMs, durationMs, rounds, path: PATH }, unavailable);
  },
};

/** Two measured windows as one: counts and CPU add up, latencies pool. */
function mergeReports(a: LoadReport, b: LoadReport): LoadReport {
  return {
    requests: a.requests + b.requests,
    errors: a.errors + b.errors,
    non2xx: a.non2xx + b.non2xx,
    ...(a.firstBadStatus !== undefined || b.firstBadStatus !== undefined
      ? { firstBadStatus: a.firstBadStatus ?? b.firstBadStatus }
      : {}),
    windowMs: a.windowMs + b.windowMs,
    bytes: a.bytes + b.bytes,
    samplesUs: a.samplesUs.concat(b.samplesUs),
    cpuS: {
      loadGenerator: a.cpuS.loadGenerator + b.cpuS.loadGenerator,
      server: a.cpuS.server + b.cpuS.server,
      machineBusy: a.cpuS.machineBusy + b.cpuS.machineBusy,
      steal: a.cpuS.steal + b.cpuS.steal,
    },
  };
}

async function start(subject: Subject): Promise<Started | { unavailable: string; server: ListeningProcess }> {
  if (subject === "hono" || subject === "edge-runtime") {
    return { server: await startListening([...NODE_TS, SERVERS, subject], {}) };
  }
  if (subject === "workerd") return { server: await startWorkerd(FUNCTION_MODULE) };
  return startTessera();
}

/** A fresh organization on the bench database, the server, and the function deployed. */
async function startTessera(): Promise<Started | { unavailable: string; server: ListeningProcess }> {
  const databaseUrl = await benchDatabaseUrl();
  const store = createPostgresStore({ url: databaseUrl, poolSize: 1 });
  let keys: { write: string; read: string };
  try {
    await migrate(store);
    const org = await createOrganization(store, {
      name: `bench-function-invoke-${Date.now()}`,
      plan: "enterprise",
    });
    const write = await createApiKey(store, org.id, { kind: "full_access", name: "bench deploy" });
    const read = await createApiKey(store, org.id, { kind: "read_only", name: "bench invoke" });
    keys = { write: write.secret, read: read.secret };
  } finally {
    await store.dispose();
  }
  const server = await startTesseraApi(databaseUrl);
  try {
    const deployed = await fetch(`${server.url}/v1/functions`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.write}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench", files: { "index.js": FUNCTION_MODULE } }),
    });
    if (deployed.status === 404) return { unavailable: "POST /v1/functions answers 404", server };
    if (deployed.status !== 201)
      throw new Error(`deploy answered ${deployed.status}: ${await deployed.text()}`);
    return { server, headers: { authorization: `Bearer ${keys.read}` } };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Every subject must give the same answer before it is timed: nothing fast and wrong. */
async function expectAnswer(url: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(url + PATH, { headers });
  const body = await response.text();
  if (response.status !== 200 || JSON.stringify(JSON.parse(body)) !== EXPECTED_BODY) {
    throw new Error(`${url}${PATH} answered ${response.status} ${body}, not ${EXPECTED_BODY}`);
  }
}

function result(
  reports: Partial<Record<Subject, LoadReport>>,
  params: Record<string, unknown>,
  unavailable: string | undefined,
): BenchResult {
  const measured = Object.fromEntries(
    Object.entries(reports).map(([subject, report]) => [subject, loadStats(report)]),
  ) as Partial<Record<Subject, ReturnType<typeof loadStats>>>;
  const anchor = measured.hono!;
  const rows: ResultRow[] = Object.entries(measured).map(([subject, s]) => ({
    subject: LABELS[subject as Subject],
    unit: "ms",
    median: s.medianMs,
    p99: s.p99Ms,
    reqPerSec: s.reqPerSec,
    versusAnchor: subject === "hono" ? "1.00×" : `${(s.reqPerSec / anchor.reqPerSec).toFixed(2)}× req/s`,
  }));
  const tessera = measured.tessera;
  const ratios = tessera && {
    hono: tessera.reqPerSec / anchor.reqPerSec,
    workerd: tessera.reqPerSec / measured.workerd!.reqPerSec,
    edgeRuntime: tessera.reqPerSec / measured["edge-runtime"]!.reqPerSec,
  };
  return {
    name: "function-invoke",
    description: `GET ${PATH} → {ok: true, n: 42}, ${String(params.connections)} connections${
      unavailable ? `; tessera not available: ${unavailable}` : ""
    }`,
    params,
    rows,
    targets: ratios
      ? [
          target("tessera req/s ≥ 0.5× bare Hono", ratios.hono, ">=", 0.5, "×"),
          target("tessera req/s ≥ 1× workerd", ratios.workerd, ">=", 1, "×"),
          target("tessera req/s ≥ 1× edge-runtime", ratios.edgeRuntime, ">=", 1, "×"),
        ]
      : [],
    details: { measured, ratios: ratios ?? null, tesseraUnavailable: unavailable ?? null },
  };
}
