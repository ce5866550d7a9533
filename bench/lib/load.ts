/**
 * The load generator, run in a process of its own (`node --import tsx bench/lib/load.ts
 * '<LoadOptions JSON>'`) so that it never shares an event loop with a server under
 * test. A closed loop: `connections` keep-alive sockets, each sending its next
 * request when the previous response has been read to the end. Latency is measured
 * per request from `http.request` to the response's last byte, in microseconds.
 * Prints one line of JSON: a LoadReport.
 */
import http from "node:http";
import { machineCpuS, processCpuS } from "./cpu.ts";

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  /** Requests before this are sent but not counted (JIT, caches, pools warm up). */
  warmupMs: number;
  durationMs: number;
  /** A process (the server) whose CPU time is sampled at the window's edges. */
  observePid?: number;
  /** `GET` (default) or `POST`. */
  method?: "GET" | "POST";
  /** A JSON body for POST; every `{n}` becomes the request's sequence number, so bodies differ. */
  bodyTemplate?: string;
  /** Stop after this many requests (measured from the start; no warm-up is then counted apart). */
  totalRequests?: number;
}

export interface LoadReport {
  /** Responses completed inside the measured window. */
  requests: number;
  errors: number;
  non2xx: number;
  /** First non-2xx status seen, for the error message. */
  firstBadStatus?: number;
  windowMs: number;
  bytes: number;
  /** Latency of each counted response, µs. */
  samplesUs: number[];
  /** CPU seconds used in the window: this load generator, the observed server, the machine. */
  cpuS: { loadGenerator: number; server: number; machineBusy: number; steal: number };
}

export async function generateLoad(options: LoadOptions): Promise<LoadReport> {
  const url = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const requestOptions: http.RequestOptions = {
    agent,
    hostname: url.hostname,
    port: url.port,
    path: url.pathname + url.search,
    headers: { accept: "application/json", ...options.headers },
  };
  const samples: number[] = [];
  const report = { requests: 0, errors: 0, non2xx: 0, bytes: 0 } as LoadReport;
  const start = performance.now();
  const total = options.totalRequests;
  // Counted runs measure every request, from the first to the last.
  const windowStart = total === undefined ? start + options.warmupMs : start;
  const windowEnd = total === undefined ? windowStart + options.durationMs : Infinity;
  let atStart = cpuNow(options.observePid);

  let sequence = 0;
  const once = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      const body = options.bodyTemplate?.replaceAll("{n}", String(sequence++));
      const request = http.request({ ...requestOptions, method: options.method ?? "GET" }, (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => (bytes += chunk.length));
        response.on("end", () => {
          const done = performance.now();
          if (done >= windowStart && done < windowEnd) {
            report.requests++;
            report.bytes += bytes;
            samples.push(Math.round((done - sent) * 1000));
            const status = response.statusCode ?? 0;
            if (status < 200 || status > 299) {
              report.non2xx++;
              report.firstBadStatus ??= status;
            }
          }
          resolve();
        });
      });
      request.on("error", () => {
        report.errors++;
        resolve();
      });
      if (body !== undefined) {
        request.setHeader("content-type", "application/json");
        request.setHeader("content-length", Buffer.byteLength(body));
      }
      request.end(body);
    });

  const connection = async () => {
    if (total !== undefined) {
      while (sequence < total) await once();
      return;
    }
    while (performance.now() < windowEnd) await once();
  };
  const windowTimers =
    total !== undefined
      ? []
      : [
          setTimeout(() => (atStart = cpuNow(options.observePid)), options.warmupMs),
          setTimeout(
            () => (report.cpuS = cpuSince(atStart, cpuNow(options.observePid))),
            options.warmupMs + options.durationMs,
          ),
        ];
  await Promise.all(Array.from({ length: options.connections }, connection));
  for (const timer of windowTimers) clearTimeout(timer);
  report.cpuS ??= cpuSince(atStart, cpuNow(options.observePid));
  agent.destroy();
  report.windowMs = total === undefined ? options.durationMs : performance.now() - start;
  report.samplesUs = samples;
  return report;
}

function cpuNow(pid: number | undefined) {
  const own = process.cpuUsage();
  return {
    loadGenerator: (own.user + own.system) / 1e6,
    server: pid === undefined ? NaN : (processCpuS(pid) ?? NaN),
    machine: machineCpuS() ?? { busy: NaN, steal: NaN },
  };
}

function cpuSince(start: ReturnType<typeof cpuNow>, end: ReturnType<typeof cpuNow>): LoadReport["cpuS"] {
  return {
    loadGenerator: end.loadGenerator - start.loadGenerator,
    server: end.server - start.server,
    machineBusy: end.machine.busy - start.machine.busy,
    steal: end.machine.steal - start.machine.steal,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = JSON.parse(process.argv[2] ?? "{}") as LoadOptions;
  const report = await generateLoad(options);
  process.stdout.write(JSON.stringify(report) + "\n");
}
