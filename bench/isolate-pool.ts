import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import {
  createIsolateHost,
  createIsolatePool,
  type GuestMessage,
  type LoadedFunction,
  type SandboxLimits,
} from "../sandbox/index.ts";
import {
  numberFlag,
  target,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
  type ResultRow,
} from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

const ECHO = readFileSync(new URL("../test/fixtures/guest/echo.js", import.meta.url), "utf8");
const LIMITS: SandboxLimits = { memoryLimitMb: 32, cpuTimeLimitMs: 1_000, wallTimeLimitMs: 5_000 };
const SIZES = {
  full: { boots: 300, invokes: 20_000, idle: 1_000 },
  tiny: { boots: 20, invokes: 500, idle: 20 },
};
const MESSAGE: GuestMessage = {
  kind: "request",
  requestId: "req_bench",
  method: "GET",
  url: "https://fn.example/",
  headers: [],
  body: null,
};

/**
 * The isolate boundary, host side, in this process: a cold boot (new isolate,
 * compile with and without the V8 code cache, run the top level), a warm invocation
 * through the pool, and the memory of many warm idle isolates. Anchors: the same
 * program in a `node:vm` context (a fresh context, then a direct call). The in-isolate
 * web platform and its snapshot are not in these numbers yet (issue 4).
 */
export const isolatePool: Benchmark = {
  name: "isolate-pool",
  summary: "isolate cold boot, warm invocation overhead and idle memory (host side) vs node:vm",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const boots = numberFlag(options.flags, "boots", size.boots);
    const invokes = numberFlag(options.flags, "invokes", size.invokes);
    const idle = numberFlag(options.flags, "idle", size.idle);

    options.log(`  ${boots} cold boots (no code cache, then with it)`);
    const cold = await coldBoots(boots, undefined);
    const probe = await createIsolateHost({ program: { code: ECHO, filename: "echo.js" }, limits: LIMITS });
    const cachedData = probe.producedCachedData;
    probe.dispose();
    const cached = await coldBoots(boots, cachedData);
    const vmCold = timeEach(boots, () => {
      const sandbox: Record<string, unknown> = {};
      runInNewContext(ECHO, sandbox);
    });

    options.log(`  ${invokes} warm invocations`);
    const warm = await warmInvocations(invokes);
    const vmWarm = await vmInvocations(invokes);

    options.log(`  ${idle} warm idle isolates`);
    const memory = await idleIsolates(idle);

    const overheadUs = warm.median - vmWarm.median;
    return {
      name: "isolate-pool",
      description: `host side, ${boots} boots, ${invokes} invocations, ${idle} idle isolates`,
      params: { boots, invokes, idle, limits: LIMITS },
      rows: [
        row("cold boot, no code cache", cold, "µs", vmCold),
        row("cold boot, V8 code cache", cached, "µs", vmCold),
        row("anchor: node:vm new context + run", vmCold, "µs"),
        row("warm invoke via pool", warm, "µs", vmWarm),
        row("anchor: direct call in node:vm", vmWarm, "µs"),
      ],
      targets: [
        target("cold start p50 ≤ 5 ms", cached.median / 1000, "<", 5.001, "ms"),
        target("cold start p99 ≤ 20 ms", cached.p99 / 1000, "<", 20.001, "ms"),
        target("warm overhead p50 ≤ 50 µs", overheadUs, "<", 50.001, "µs"),
        target(`${idle} idle isolates ≤ 3 GB RSS`, memory.rssMb * (1000 / idle), "<", 3072, "MB per 1,000"),
      ],
      details: { cold, cached, vmCold, warm, vmWarm, overheadUs, memory },
    };
  },
};

function row(
  subject: string,
  s: ReturnType<typeof summarize>,
  unit: "ms" | "µs",
  anchor?: ReturnType<typeof summarize>,
): ResultRow {
  return {
    subject,
    unit,
    median: s.median,
    p99: s.p99,
    reqPerSec: 1e6 / s.mean,
    versusAnchor: anchor ? `${(s.median / anchor.median).toFixed(1)}× median` : "1.0×",
  };
}

function timeEach(count: number, fn: () => void) {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    fn();
    samples.push((performance.now() - started) * 1000);
  }
  return summarize(samples);
}

async function coldBoots(count: number, cachedData: Uint8Array | undefined) {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const host = await createIsolateHost({
      program: { code: ECHO, filename: "echo.js", ...(cachedData ? { cachedData } : {}) },
      limits: LIMITS,
    });
    await host.invoke(MESSAGE);
    samples.push((performance.now() - started) * 1000);
    host.dispose();
  }
  return summarize(samples);
}

async function warmInvocations(count: number) {
  const pool = createIsolatePool({ maxIsolates: 10, memoryBudgetMb: 1024, idleTimeoutMs: 60_000 });
  const load = (): Promise<LoadedFunction> =>
    Promise.resolve({ program: { code: ECHO, filename: "echo.js" }, limits: LIMITS });
  const key = { orgId: "org_bench", functionId: "fn_echo", version: 1 };
  try {
    for (let i = 0; i < 200; i++) await pool.invoke(key, load, MESSAGE);
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await pool.invoke(key, load, MESSAGE);
      samples.push((performance.now() - started) * 1000);
    }
    return summarize(samples);
  } finally {
    await pool.dispose();
  }
}

async function vmInvocations(count: number) {
  const sandbox: Record<string, unknown> = {};
  runInNewContext(ECHO, sandbox);
  const dispatch = sandbox.__tessera_dispatch as (message: string) => Promise<string>;
  const samples: number[] = [];
  for (let i = 0; i < 200 + count; i++) {
    const started = performance.now();
    JSON.parse(await dispatch(JSON.stringify(MESSAGE)));
    if (i >= 200) samples.push((performance.now() - started) * 1000);
  }
  return summarize(samples);
}

async function idleIsolates(count: number) {
  global.gc?.();
  const before = process.memoryUsage().rss;
  const pool = createIsolatePool({
    maxIsolates: count + 1,
    memoryBudgetMb: 1 << 20,
    idleTimeoutMs: 3_600_000,
  });
  const load = (): Promise<LoadedFunction> =>
    Promise.resolve({ program: { code: ECHO, filename: "echo.js" }, limits: LIMITS });
  try {
    for (let i = 0; i < count; i++) {
      await pool.invoke({ orgId: `org_${i}`, functionId: "fn_echo", version: 1 }, load, MESSAGE);
    }
    const rssMb = (process.memoryUsage().rss - before) / (1024 * 1024);
    const stats = await pool.stats();
    return { isolates: stats.isolates, rssMb, heapUsedMb: stats.heapUsedBytes / (1024 * 1024) };
  } finally {
    await pool.dispose();
  }
}
