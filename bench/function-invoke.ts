import { createApiKey, createOrganization, OPERATOR } from "../engines/index.ts";
import { createPostgresStore, migrate } from "../store/index.ts";
import { fileURLToPath } from "node:url";
import { EXPECTED_BODY, FUNCTIONS, QUERY, type FunctionName } from "./lib/invoke-function.ts";
import { mergeReports, type LoadReport } from "./lib/load-report.ts";
import { startOtlpSink, type OtlpSink } from "./lib/otlp-sink.ts";
import { NODE_TS, runLoad, startListening, type ListeningProcess } from "./lib/processes.ts";
import { orderOfRound } from "./lib/rounds.ts";
import {
  generatorTargets,
  loadRow,
  numberFlag,
  target,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
} from "./lib/report.ts";
import { loadStats, type LoadStats } from "./lib/stats.ts";
import { benchDatabaseUrl, startTesseraApi } from "./lib/tessera-server.ts";
import { startWorkerd } from "./lib/workerd-server.ts";

const SERVERS = fileURLToPath(new URL("./lib/invoke-servers.ts", import.meta.url));
const SIZES = {
  full: { warmupS: 2, durationS: 10, rounds: 5 },
  tiny: { warmupS: 1, durationS: 1, rounds: 1 },
};

type SubjectKey =
  | "hono"
  | "workerd"
  | "workerd-url"
  | "edge-runtime"
  | "tessera"
  | "tessera-url"
  | "tessera-traced"
  | "baseline"
  | "baseline-url";
const LABELS: Record<SubjectKey, string> = {
  hono: "anchor: bare Hono on Node",
  workerd: "workerd (Cloudflare)",
  "workerd-url": "workerd, URL parsed",
  "edge-runtime": "edge-runtime (Vercel)",
  tessera: "tessera: deployed function",
  "tessera-url": "tessera, URL parsed",
  "tessera-traced": "tessera, tracing on (OTLP to a local sink)",
  baseline: "tessera, --baseline tree",
  "baseline-url": "tessera, --baseline tree, URL parsed",
};

/** The tracing-on subject's sink, its sampler's variables, and what it exported. */
interface TracedSubject {
  env: Record<string, string>;
  sink?: OtlpSink;
  exported?: { posts: number; bytes: number };
}

interface Subject {
  key: SubjectKey;
  server: ListeningProcess;
  /** Path and query the load asks for. */
  path: string;
  headers?: Record<string, string>;
}

/**
 * Two functions at 32 connections: a trivial one (`{ ok: true, n: 42 }`, touching
 * nothing of the request: the platform's own cost) and one that reads `n` from its
 * query through `new URL(request.url)`. Served by a bare Hono handler on Node (the
 * anchor), by Cloudflare's workerd, by Vercel's edge-runtime (trivial only), and by
 * Tessera: the full stack of `tessera serve --role api` (auth with a
 * `functions:read` key, rate limits counting but never refusing, the functions
 * deployed through `POST /v1/functions` and invoked on `/v1/functions/…/invoke/…`).
 *
 * All listen side by side and are loaded in turns, `--rounds` slices of the duration
 * each (5 by default), every other round in reverse order (lib/rounds.ts), so that the
 * machine's drift over a minute falls on every subject alike. The load comes from wrk
 * (see lib/wrk.ts), and each subject's server CPU per request (whole process and main
 * thread) is reported beside its rate.
 */
export const functionInvoke: Benchmark = {
  name: "function-invoke",
  summary: "trivial and URL-parsing functions: Tessera vs bare Hono, workerd and edge-runtime",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const connections = numberFlag(options.flags, "connections", 32);
    const warmupMs = numberFlag(options.flags, "warmup", size.warmupS) * 1000;
    const durationMs = numberFlag(options.flags, "duration", size.durationS) * 1000;
    const rounds = Math.max(1, Math.round(numberFlag(options.flags, "rounds", size.rounds)));
    const only = options.flags.subjects?.split(",");
    const baseline = options.flags.baseline
      ? { checkout: options.flags.baseline, node: options.flags["baseline-node"] }
      : undefined;
    const reports: Partial<Record<SubjectKey, LoadReport>> = {};
    const servers: Array<Pick<ListeningProcess, "stop">> = [];
    // `--trace-sampler=parentbased_traceidratio --trace-ratio=0.1`: the traced subject's sampler.
    const sampler = options.flags["trace-sampler"];
    const ratio = options.flags["trace-ratio"];
    const tracing: TracedSubject = {
      env: {
        ...(sampler ? { OTEL_TRACES_SAMPLER: sampler } : {}),
        ...(ratio ? { OTEL_TRACES_SAMPLER_ARG: ratio } : {}),
      },
    };
    try {
      const subjects = await startSubjects(servers, only, baseline, tracing);
      for (const subject of subjects) await expectAnswer(subject);
      options.log(
        `  ${subjects.map((s) => s.key).join(", ")}: ${rounds} round(s) of ${(durationMs / rounds / 1000).toFixed(1)} s each at ${connections} connections`,
      );
      for (let round = 0; round < rounds; round++) {
        for (const subject of orderOfRound(subjects, round)) {
          // Later rounds find the JIT, caches and pools warm: they start measuring at once.
          const slice = await runLoad(
            {
              url: subject.server.url + subject.path,
              headers: subject.headers,
              connections,
              warmupMs: round === 0 ? warmupMs : 0,
              durationMs: durationMs / rounds,
              observePid: subject.server.pid,
            },
            options.log,
          );
          const sofar = reports[subject.key];
          reports[subject.key] = sofar ? mergeReports(sofar, slice) : slice;
        }
      }
      tracing.exported = tracing.sink?.received();
    } finally {
      for (const server of servers) await server.stop();
    }
    return result(reports, { connections, warmupMs, durationMs, rounds }, tracing.exported);
  },
};

async function startSubjects(
  servers: Array<Pick<ListeningProcess, "stop">>,
  only: string[] | undefined,
  baseline: { checkout: string; node: string | undefined } | undefined,
  tracing: TracedSubject,
): Promise<Subject[]> {
  const wanted = (key: SubjectKey) => !only || only.includes(key);
  const subjects: Subject[] = [];
  const started = async (server: Promise<ListeningProcess>) => {
    const running = await server;
    servers.push(running);
    return running;
  };
  if (wanted("hono")) {
    const hono = await started(startListening([...NODE_TS, SERVERS, "hono"], {}));
    subjects.push({ key: "hono", server: hono, path: `/trivial/42${QUERY}` });
  }
  for (const [key, fn] of [
    ["workerd", "trivial"],
    ["workerd-url", "url"],
  ] as const) {
    if (wanted(key))
      subjects.push({ key, server: await started(startWorkerd(FUNCTIONS[fn])), path: `/${QUERY}` });
  }
  if (wanted("edge-runtime")) {
    const edge = await started(startListening([...NODE_TS, SERVERS, "edge-runtime"], {}));
    subjects.push({ key: "edge-runtime", server: edge, path: `/${QUERY}` });
  }
  // This tree's server, and with --baseline another checkout's, each with both functions.
  const trees: Array<[SubjectKey, SubjectKey, { checkout?: string; node?: string | undefined }]> = [
    ["tessera", "tessera-url", {}],
  ];
  if (baseline) trees.push(["baseline", "baseline-url", baseline]);
  for (const [trivialKey, urlKey, tree] of trees) {
    if (!wanted(trivialKey) && !wanted(urlKey)) continue;
    const { server, headers } = await startTessera(started, tree.checkout, tree.node);
    for (const [key, name] of [
      [trivialKey, "bench"],
      [urlKey, "bench-url"],
    ] as const) {
      if (wanted(key))
        subjects.push({ key, server, headers, path: `/v1/functions/${name}/invoke/42${QUERY}` });
    }
  }
  // This tree's server again, tracing every invocation (the default sampler) to a sink that keeps
  // nothing: what tracing on costs. Tracing off is `tessera` against `--baseline` (the tree before).
  if (wanted("tessera-traced")) {
    const sink = await startOtlpSink();
    servers.push({ stop: () => sink.close() });
    tracing.sink = sink;
    const { server, headers } = await startTessera(started, undefined, undefined, {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      ...tracing.env,
    });
    subjects.push({ key: "tessera-traced", server, headers, path: `/v1/functions/bench/invoke/42${QUERY}` });
  }
  return subjects;
}

/** A fresh organization on the bench database, the server, and both functions deployed. */
async function startTessera(
  started: (server: Promise<ListeningProcess>) => Promise<ListeningProcess>,
  checkout: string | undefined,
  node: string | undefined,
  env: Record<string, string> = {},
): Promise<{ server: ListeningProcess; headers: Record<string, string> }> {
  const databaseUrl = await benchDatabaseUrl();
  const store = createPostgresStore({ url: databaseUrl, poolSize: 1 });
  let keys: { write: string; read: string };
  try {
    await migrate(store);
    const org = await createOrganization(store, {
      name: `bench-function-invoke-${Date.now()}`,
      plan: "enterprise",
    });
    const write = await createApiKey(store, org.id, { kind: "full_access", name: "bench deploy" }, OPERATOR);
    const read = await createApiKey(store, org.id, { kind: "read_only", name: "bench invoke" }, OPERATOR);
    keys = { write: write.secret, read: read.secret };
  } finally {
    await store.dispose();
  }
  const server = await started(startTesseraApi(databaseUrl, { checkout, node, env }));
  const deployments: Array<[string, FunctionName]> = [
    ["bench", "trivial"],
    ["bench-url", "url"],
  ];
  for (const [name, fn] of deployments) {
    const deployed = await fetch(`${server.url}/v1/functions`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.write}`, "content-type": "application/json" },
      body: JSON.stringify({ name, files: { "index.js": FUNCTIONS[fn] } }),
    });
    if (deployed.status !== 201)
      throw new Error(`deploy answered ${deployed.status}: ${await deployed.text()}`);
  }
  return { server, headers: { authorization: `Bearer ${keys.read}` } };
}

/** Every subject must give the same answer before it is timed: nothing fast and wrong. */
async function expectAnswer(subject: Subject): Promise<void> {
  const url = subject.server.url + subject.path;
  const response = await fetch(url, { headers: subject.headers });
  const body = await response.text();
  if (response.status !== 200 || JSON.stringify(JSON.parse(body)) !== EXPECTED_BODY) {
    throw new Error(`${url} answered ${response.status} ${body}, not ${EXPECTED_BODY}`);
  }
}

function result(
  reports: Partial<Record<SubjectKey, LoadReport>>,
  params: Record<string, unknown>,
  exported: { posts: number; bytes: number } | undefined,
): BenchResult {
  const measured = Object.fromEntries(
    Object.entries(reports).map(([key, report]) => [key, loadStats(report)]),
  ) as Partial<Record<SubjectKey, LoadStats>>;
  const anchor = measured.hono;
  const ratio = (a: SubjectKey, b: SubjectKey) => {
    const x = measured[a];
    const y = measured[b];
    return x && y ? x.reqPerSec / y.reqPerSec : undefined;
  };
  /** Main-thread CPU per invocation of `a` over `b`'s: steadier than the rate on a shared machine. */
  const cpuRatio = (a: SubjectKey, b: SubjectKey) => {
    const x = measured[a]?.cpuPerRequestUs.serverMainThread;
    const y = measured[b]?.cpuPerRequestUs.serverMainThread;
    return x && y ? x / y : undefined;
  };
  const versus = (key: SubjectKey, s: LoadStats) => {
    const parts = [];
    if (anchor)
      parts.push(key === "hono" ? "1.00×" : `${(s.reqPerSec / anchor.reqPerSec).toFixed(2)}× req/s`);
    const off = key === "tessera-traced" ? ratio("tessera-traced", "tessera") : undefined;
    if (off !== undefined) parts.push(`${off.toFixed(3)}× tracing off`);
    return parts.length > 0 ? parts.join("; ") : undefined;
  };
  const rows = Object.entries(measured).map(([key, s]) =>
    loadRow(LABELS[key as SubjectKey], s, versus(key as SubjectKey, s)),
  );
  const ratios = {
    hono: ratio("tessera", "hono"),
    workerd: ratio("tessera", "workerd"),
    workerdUrl: ratio("tessera-url", "workerd-url"),
    edgeRuntime: ratio("tessera", "edge-runtime"),
    baseline: ratio("tessera", "baseline"),
    baselineUrl: ratio("tessera-url", "baseline-url"),
    baselineCpu: cpuRatio("tessera", "baseline"),
    tracingOn: ratio("tessera-traced", "tessera"),
    tracingOnCpu: cpuRatio("tessera-traced", "tessera"),
  };
  const targets = [
    ratios.hono !== undefined && target("tessera req/s ≥ 0.5× bare Hono", ratios.hono, ">=", 0.5, "×"),
    ratios.workerd !== undefined && target("tessera req/s ≥ 1× workerd", ratios.workerd, ">=", 1, "×"),
    ratios.workerdUrl !== undefined &&
      target("URL parsed: tessera req/s ≥ 1× workerd", ratios.workerdUrl, ">=", 1, "×"),
    ratios.edgeRuntime !== undefined &&
      target("tessera req/s ≥ 1× edge-runtime", ratios.edgeRuntime, ">=", 1, "×"),
    measured.tessera &&
      target(
        "tessera main-thread CPU per invocation ≤ 90 µs",
        measured.tessera.cpuPerRequestUs.serverMainThread,
        "<=",
        90,
        "µs",
      ),
    // Tracing off costs at most 2 % against the tree before it (run with --baseline=<that tree>).
    ratios.baseline !== undefined &&
      target("tracing off: req/s ≥ 0.98× the --baseline tree", ratios.baseline, ">=", 0.98, "×"),
    ratios.baselineCpu !== undefined &&
      target(
        "tracing off: main-thread CPU per invocation ≤ 1.02× the --baseline tree",
        ratios.baselineCpu,
        "<=",
        1.02,
        "×",
      ),
    ...generatorTargets(measured),
  ].filter((t) => t !== false && t !== undefined);
  return {
    name: "function-invoke",
    description: `GET …/invoke/42${QUERY} → {ok: true, n: 42}, ${String(params.connections)} connections`,
    params,
    rows,
    targets,
    details: { measured, ratios, ...(exported ? { tracing: { exported } } : {}) },
  };
}
