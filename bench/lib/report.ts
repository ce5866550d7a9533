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
}

export interface Target {
  name: string;
  actual: number;
  limit: number;
  unit: string;
  /** `<`: actual must stay under the limit; `>=`: reach it. */
  comparison: "<" | ">=";
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
  comparison: "<" | ">=",
  limit: number,
  unit: string,
): Target {
  const pass = comparison === "<" ? actual < limit : actual >= limit;
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
