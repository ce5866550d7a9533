import { withDeadline } from "../core/index.ts";

/**
 * Prometheus text exposition (format 0.0.4) for request counts and latencies.
 * Small enough to own; labels are bounded (route patterns, not raw paths).
 */
const BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One method and route: its requests by status and its latency histogram. */
interface Series {
  /** `method="…",route="…"`, made once. */
  labels: string;
  byStatus: Map<number, number>;
  counts: number[];
  sum: number;
  count: number;
}

/** One value a collector read at scrape time. */
export interface MetricSample {
  name: string;
  help: string;
  value: number;
  type?: "gauge" | "counter";
}

/** Collectors that have this long to answer a scrape; a late or failing one is left out and counted. */
const COLLECT_DEADLINE_MS = 5_000;

export interface Metrics {
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** Adds a value read at scrape time: a gauge, or a counter kept elsewhere (e.g. cache hits). */
  gauge(name: string, help: string, read: () => number, type?: "gauge" | "counter"): void;
  /** Adds values read asynchronously at scrape time (e.g. queue depths in the store). */
  collect(collector: () => Promise<MetricSample[]>): void;
  render(): Promise<string>;
}

export function createMetrics(): Metrics {
  // Method → route → series: looked up by the strings as they come (no label text made per
  // request, which cost a string build and hash each time).
  const series = new Map<string, Map<string, Series>>();
  const gauges: Array<{ name: string; help: string; read: () => number; type: "gauge" | "counter" }> = [];
  const collectors: Array<() => Promise<MetricSample[]>> = [];
  let collectFailures = 0;
  const started = Date.now();

  async function collected(): Promise<MetricSample[]> {
    const results = await Promise.allSettled(
      collectors.map((collector) => withDeadline(collector(), "metrics collector", COLLECT_DEADLINE_MS)),
    );
    return results.flatMap((result) => {
      if (result.status === "fulfilled") return result.value;
      collectFailures++;
      return [];
    });
  }

  return {
    observeRequest(method, route, status, seconds) {
      let routes = series.get(method);
      if (!routes) series.set(method, (routes = new Map<string, Series>()));
      let one = routes.get(route);
      if (!one) {
        const labels = `method="${method}",route="${route}"`;
        one = { labels, byStatus: new Map(), counts: BUCKETS_S.map(() => 0), sum: 0, count: 0 };
        routes.set(route, one);
      }
      one.byStatus.set(status, (one.byStatus.get(status) ?? 0) + 1);
      for (let i = 0; i < BUCKETS_S.length; i++) if (seconds <= BUCKETS_S[i]!) one.counts[i]!++;
      one.sum += seconds;
      one.count++;
    },
    gauge(name, help, read, type = "gauge") {
      gauges.push({ name, help, read, type });
    },
    collect(collector) {
      collectors.push(collector);
    },
    async render() {
      const samples = await collected();
      const lines = [
        "# HELP tessera_http_requests_total HTTP requests by method, route and status.",
        "# TYPE tessera_http_requests_total counter",
      ];
      const all = [...series.values()].flatMap((routes) => [...routes.values()]);
      for (const { labels, byStatus } of all) {
        for (const [status, value] of byStatus) {
          lines.push(`tessera_http_requests_total{${labels},status="${status}"} ${value}`);
        }
      }
      lines.push(
        "# HELP tessera_http_request_duration_seconds HTTP request latency.",
        "# TYPE tessera_http_request_duration_seconds histogram",
      );
      for (const h of all) {
        const { labels } = h;
        BUCKETS_S.forEach((le, i) =>
          lines.push(`tessera_http_request_duration_seconds_bucket{${labels},le="${le}"} ${h.counts[i]}`),
        );
        lines.push(`tessera_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
        lines.push(`tessera_http_request_duration_seconds_sum{${labels}} ${h.sum}`);
        lines.push(`tessera_http_request_duration_seconds_count{${labels}} ${h.count}`);
      }
      const memory = process.memoryUsage();
      const builtin = [
        {
          name: "tessera_process_uptime_seconds",
          help: "Seconds since start.",
          value: (Date.now() - started) / 1000,
          type: "gauge",
        },
        {
          name: "tessera_process_resident_memory_bytes",
          help: "Resident set size.",
          value: memory.rss,
          type: "gauge",
        },
        {
          name: "tessera_process_heap_used_bytes",
          help: "V8 heap in use.",
          value: memory.heapUsed,
          type: "gauge",
        },
        {
          name: "tessera_metrics_collect_failures_total",
          help: "Scrapes a collector failed or was too slow for (its values were left out).",
          value: collectFailures,
          type: "counter",
        },
      ];
      for (const g of [
        ...builtin,
        ...gauges.map((g) => ({ ...g, value: g.read() })),
        ...samples.map((s) => ({ ...s, type: s.type ?? "gauge" })),
      ]) {
        lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} ${g.type}`, `${g.name} ${g.value}`);
      }
      return lines.join("\n") + "\n";
    },
  };
}
