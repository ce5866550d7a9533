import type { LoadStats } from "./stats.ts";

/** What every benchmark returns; run.ts prints it as a table and writes it as JSON. */
export interface BenchResult {
  name: string;
  /** One line on what was measured and at which size. */
  description: string;
  params: Record<string, unknown>;
  rows: ResultRow[];
  targets: Target[];
  /** Anything else worth keeping in the JSON (CPU use, seed time…). */
  details?: Record<string, unknown>;
}

export interface ResultRow {
  subject: string;
  unit: "ms" | "µs";
  median: number;
  p99: number;
  /** Requests per second, when the benchmark drives load. */
  reqPerSec?: number;
  /** Against the anchor measured in the same run, e.g. `0.52× anchor req/s`. */
  versusAnchor?: string;
  /** Server CPU per request, µs: the whole process, and its main thread alone. */
  serverCpuUs?: { process: number; mainThread: number };
  /** The load generator's own CPU over the window, in cores, and which generator it was. */
  generatorCpu?: { cores: number; generator: string };
}

/** The row of a subject measured under load: rate, latency, and whose CPU it took. */
export function loadRow(subject: string, stats: LoadStats, versusAnchor?: string): ResultRow {
  return {
    subject,
    unit: "ms",
    median: stats.medianMs,
    p99: stats.p99Ms,
    reqPerSec: stats.reqPerSec,
    ...(versusAnchor === undefined ? {} : { versusAnchor }),
    serverCpuUs: {
      process: stats.cpuPerRequestUs.server,
      mainThread: stats.cpuPerRequestUs.serverMainThread,
    },
    generatorCpu: { cores: stats.cpu.loadGenerator, generator: stats.generator },
  };
}

export interface Target {
  name: string;
  actual: number;
  limit: number;
  unit: string;
  /** `<`/`<=`: actual must stay under (or at) the limit; `>=`: reach it. */
  comparison: "<" | "<=" | ">=";
  pass: boolean;
}

export interface BenchOptions {
  tiny: boolean;
  log: (line: string) => void;
  /** `--name=value` options from the command line, for one benchmark's knobs. */
  flags: Record<string, string>;
}

export interface Benchmark {
  name: string;
  summary: string;
  run(options: BenchOptions): Promise<BenchResult>;
}

export function target(
  name: string,
  actual: number,
  comparison: "<" | "<=" | ">=",
  limit: number,
  unit: string,
): Target {
  const pass = comparison === "<" ? actual < limit : comparison === "<=" ? actual <= limit : actual >= limit;
  return { name, actual, limit, unit, comparison, pass };
}

/** A numeric `--name=value` flag, or the fallback. */
export function numberFlag(flags: Record<string, string>, name: string, fallback: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const value = Number(raw.replace(/_/g, ""));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

/**
 * One target per loaded subject: the load generator stayed under 0.8 of a core. A
 * generator near a whole core is the bottleneck, and the rate it reports is its own.
 */
export function generatorTargets(measured: Record<string, LoadStats | undefined>): Target[] {
  return Object.entries(measured).flatMap(([subject, stats]) =>
    stats
      ? [
          target(
            `load generator < 0.8 core while loading ${subject}`,
            stats.cpu.loadGenerator,
            "<",
            0.8,
            "cores",
          ),
        ]
      : [],
  );
}
