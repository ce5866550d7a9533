import type { LoadReport } from "./load.ts";
/** Latency summary of a set of samples (same unit in and out). */
export interface Summary {
  count: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of sorted values, p in [0, 100]. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    median: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}

/** Rate, latency and CPU shares of one load run's measured window. */
export function loadStats(report: LoadReport) {
  const latency = summarize(report.samplesUs);
  const windowS = report.windowMs / 1000;
  return {
    reqPerSec: report.requests / windowS,
    medianMs: latency.median / 1000,
    p99Ms: latency.p99 / 1000,
    cpu: { server: report.cpuS.server / windowS, machine: report.cpuS.machineBusy / windowS },
  };
}
