/**
 * What a load run is asked to do and what it reports, whichever generator ran it
 * (`wrk.ts`, the native one, or `node-load.ts`, the Node client kept as a fallback).
 */
import { machineCpuS, processCpuS, threadCpuS } from "./cpu.ts";
import { dbMeterOf, type DbReading } from "./db-meter.ts";

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
}

/** Latencies as `[µs, count]` pairs, ascending: what wrk keeps, and mergeable across runs. */
export type Histogram = Array<[number, number]>;

export interface LoadReport {
  /** Which generator drove the load: `wrk` or `node`. */
  generator: "wrk" | "node";
  /** Responses completed inside the measured window. */
  requests: number;
  errors: number;
  non2xx: number;
  /** First non-2xx status seen, for the error message (the Node client only; wrk counts them). */
  firstBadStatus?: number;
  windowMs: number;
  bytes: number;
  latencyUs: Histogram;
  /**
   * CPU seconds used in the window: the load generator itself, the observed server
   * (all its threads, and its main thread alone: the event loop every request
   * crosses), the whole machine, and time stolen by the hypervisor.
   */
  cpuS: {
    loadGenerator: number;
    server: number;
    serverMainThread: number;
    machineBusy: number;
    steal: number;
  };
  /**
   * What the window cost PostgreSQL, when the server's database connections went
   * through a meter (`BENCH_DB_METER=1`, see db-meter.ts; wrk runs only): statements
   * sent (round trips) and the CPU seconds of the backends that served them.
   */
  database?: { statements: number; backendCpuS: number };
}

/** Two measured windows as one: counts and CPU add up, latencies pool. */
export function mergeReports(a: LoadReport, b: LoadReport): LoadReport {
  const sum = <K extends keyof LoadReport["cpuS"]>(key: K) => a.cpuS[key] + b.cpuS[key];
  return {
    generator: a.generator,
    requests: a.requests + b.requests,
    errors: a.errors + b.errors,
    non2xx: a.non2xx + b.non2xx,
    ...(a.firstBadStatus !== undefined || b.firstBadStatus !== undefined
      ? { firstBadStatus: a.firstBadStatus ?? b.firstBadStatus }
      : {}),
    windowMs: a.windowMs + b.windowMs,
    bytes: a.bytes + b.bytes,
    latencyUs: mergeHistograms(a.latencyUs, b.latencyUs),
    cpuS: {
      loadGenerator: sum("loadGenerator"),
      server: sum("server"),
      serverMainThread: sum("serverMainThread"),
      machineBusy: sum("machineBusy"),
      steal: sum("steal"),
    },
    ...(a.database && b.database
      ? {
          database: {
            statements: a.database.statements + b.database.statements,
            backendCpuS: a.database.backendCpuS + b.database.backendCpuS,
          },
        }
      : {}),
  };
}

export function mergeHistograms(a: Histogram, b: Histogram): Histogram {
  const counts = new Map<number, number>(a);
  for (const [value, count] of b) counts.set(value, (counts.get(value) ?? 0) + count);
  return [...counts].sort((x, y) => x[0] - y[0]);
}

/** The CPU counters a window is measured between. */
export interface CpuSnapshot {
  server: number;
  serverMainThread: number;
  machine: { busy: number; steal: number };
  database?: DbReading;
}

export function serverCpuSnapshot(pid: number | undefined): CpuSnapshot {
  return {
    server: pid === undefined ? NaN : (processCpuS(pid) ?? NaN),
    // A process's main thread has the process's own id as its thread id.
    serverMainThread: pid === undefined ? NaN : (threadCpuS(pid, pid) ?? NaN),
    machine: machineCpuS() ?? { busy: NaN, steal: NaN },
    ...(dbMeterOf(pid) ? { database: dbMeterOf(pid)!.reading() } : {}),
  };
}

/** The database's share of a window, when both snapshots have a meter's reading. */
export function databaseBetween(start: CpuSnapshot, end: CpuSnapshot): Pick<LoadReport, "database"> {
  if (!start.database || !end.database) return {};
  return {
    database: {
      statements: end.database.statements - start.database.statements,
      backendCpuS: end.database.backendCpuS - start.database.backendCpuS,
    },
  };
}

export function cpuBetween(start: CpuSnapshot, end: CpuSnapshot, loadGenerator: number): LoadReport["cpuS"] {
  return {
    loadGenerator,
    server: end.server - start.server,
    serverMainThread: end.serverMainThread - start.serverMainThread,
    machineBusy: end.machine.busy - start.machine.busy,
    steal: end.machine.steal - start.machine.steal,
  };
}
