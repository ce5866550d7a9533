import type { Histogram, LoadReport } from "./load-report.ts";
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

/** The same summary of a histogram (`[value, count]` pairs, ascending), nearest rank. */
export function summarizeHistogram(histogram: Histogram): Summary {
  let count = 0;
  let sum = 0;
  for (const [value, n] of histogram) {
    count += n;
    sum += value * n;
  }
  const at = (p: number) => {
    if (count === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * count));
    let seen = 0;
    for (const [value, n] of histogram) {
      seen += n;
      if (seen >= rank) return value;
    }
    return histogram[histogram.length - 1]![0];
  };
  return {
    count,
    median: at(50),
    p90: at(90),
    p99: at(99),
    max: histogram[histogram.length - 1]?.[0] ?? NaN,
    mean: count ? sum / count : NaN,
  };
}

/**
 * Rate, latency and CPU of one load run's measured window. CPU comes two ways: as
 * shares of one core over the window, and per request in µs — the server's whole
 * process, its main thread (the event loop every request crosses) and the load
 * generator's own. A generator near a full core is the bottleneck, whatever the rate says.
 */
export function loadStats(report: LoadReport) {
  const latency = summarizeHistogram(report.latencyUs);
  const windowS = report.windowMs / 1000;
  const perRequestUs = (cpuS: number) => (cpuS / report.requests) * 1e6;
  return {
    generator: report.generator,
    requests: report.requests,
    reqPerSec: report.requests / windowS,
    medianMs: latency.median / 1000,
    p90Ms: latency.p90 / 1000,
    p99Ms: latency.p99 / 1000,
    maxMs: latency.max / 1000,
    cpu: {
      server: report.cpuS.server / windowS,
      serverMainThread: report.cpuS.serverMainThread / windowS,
      loadGenerator: report.cpuS.loadGenerator / windowS,
      machine: report.cpuS.machineBusy / windowS,
      steal: report.cpuS.steal / windowS,
    },
    cpuPerRequestUs: {
      server: perRequestUs(report.cpuS.server),
      serverMainThread: perRequestUs(report.cpuS.serverMainThread),
      loadGenerator: perRequestUs(report.cpuS.loadGenerator),
    },
    // With BENCH_DB_METER=1: round trips and PostgreSQL's CPU (its backends) per request.
    ...(report.database
      ? {
          database: {
            statementsPerRequest: report.database.statements / report.requests,
            backendCpuPerRequestUs: perRequestUs(report.database.backendCpuS),
          },
        }
      : {}),
  };
}

export type LoadStats = ReturnType<typeof loadStats>;
