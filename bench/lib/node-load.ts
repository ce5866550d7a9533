/**
 * The Node load generator, kept as the fallback where `wrk` is missing and cannot be
 * installed (`BENCH_LOAD=node` forces it). It saturates a core before a bare Hono
 * server does on a 2-core machine, so its own CPU is in every report: a ratio measured
 * with it is a floor, not a verdict.
 *
 * Run in a process of its own (`node --import tsx bench/lib/node-load.ts '<LoadOptions
 * JSON>'`) so that it never shares an event loop with a server under test. A closed
 * loop: `connections` keep-alive sockets, each sending its next request when the
 * previous response has been read to the end. Latency is measured per request from
 * `http.request` to the response's last byte, in microseconds. Prints one line of
 * JSON: a LoadReport.
 */
import http from "node:http";
import { cpuBetween, serverCpuSnapshot, type LoadOptions, type LoadReport } from "./load-report.ts";

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
  const latency = new Map<number, number>();
  const report = { generator: "node", requests: 0, errors: 0, non2xx: 0, bytes: 0 } as LoadReport;
  const start = performance.now();
  const windowStart = start + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  let atStart = snapshot(options.observePid);

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
            const us = Math.round((done - sent) * 1000);
            latency.set(us, (latency.get(us) ?? 0) + 1);
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
    while (performance.now() < windowEnd) await once();
  };
  const windowTimers = [
    setTimeout(() => (atStart = snapshot(options.observePid)), options.warmupMs),
    setTimeout(
      () => (report.cpuS = since(atStart, options.observePid)),
      options.warmupMs + options.durationMs,
    ),
  ];
  await Promise.all(Array.from({ length: options.connections }, connection));
  for (const timer of windowTimers) clearTimeout(timer);
  report.cpuS ??= since(atStart, options.observePid);
  agent.destroy();
  report.windowMs = options.durationMs;
  report.latencyUs = [...latency].sort((a, b) => a[0] - b[0]);
  return report;
}

function snapshot(pid: number | undefined) {
  const own = process.cpuUsage();
  return { server: serverCpuSnapshot(pid), ownS: (own.user + own.system) / 1e6 };
}

function since(start: ReturnType<typeof snapshot>, pid: number | undefined): LoadReport["cpuS"] {
  const end = snapshot(pid);
  return cpuBetween(start.server, end.server, end.ownS - start.ownS);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = JSON.parse(process.argv[2] ?? "{}") as LoadOptions;
  const report = await generateLoad(options);
  process.stdout.write(JSON.stringify(report) + "\n");
}
