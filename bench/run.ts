/**
 * `npm run bench [-- [--tiny] [--strict] [--name=value…] [benchmark…]]`
 *
 * Runs the benchmarks (all, or the ones named), prints one table of results with
 * their ratios against the anchors measured in the same run, then the targets
 * with PASS/MISS, and writes everything as JSON to bench/results/. `--tiny` runs
 * each once at a tiny size to prove it works; targets are reported, never
 * asserted. The exit code is non-zero when a benchmark crashes, or with
 * `--strict` when a target is missed.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { authOverhead } from "./auth-overhead.ts";
import { clients } from "./clients.ts";
import { createContacts } from "./create-contacts.ts";
import { functionInvoke } from "./function-invoke.ts";
import { isolatePool } from "./isolate-pool.ts";
import { listOverdue } from "./list-overdue.ts";
import { syncPlanner } from "./sync-planner.ts";
import { webhookDelivery } from "./webhook-delivery.ts";
import { setProcessV8Flags } from "../sandbox/index.ts";
import type { Benchmark, BenchResult } from "./lib/report.ts";

const BENCHMARKS: Benchmark[] = [
  listOverdue,
  createContacts,
  authOverhead,
  webhookDelivery,
  isolatePool,
  functionInvoke,
  syncPlanner,
  clients,
];
const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

interface Args {
  tiny: boolean;
  strict: boolean;
  names: string[];
  flags: Record<string, string>;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { tiny: false, strict: false, names: [], flags: {} };
  for (const arg of argv) {
    if (arg === "--tiny") args.tiny = true;
    else if (arg === "--strict") args.strict = true;
    else if (arg === "--help" || arg === "-h") args.names.push("help");
    else if (arg.startsWith("--") && arg.includes("=")) {
      const [name, value] = arg.slice(2).split("=", 2) as [string, string];
      args.flags[name] = value;
    } else if (!arg.startsWith("-")) args.names.push(arg);
    else throw new Error(`unknown option ${arg}`);
  }
  return args;
}

const USAGE = `usage: npm run bench -- [--tiny] [--strict] [--name=value…] [benchmark…]

${BENCHMARKS.map((b) => `  ${b.name.padEnd(15)} ${b.summary}`).join("\n")}

  --tiny      each benchmark once at a tiny size (proves it runs; numbers mean little)
  --strict    exit non-zero when a target is missed
  list-overdue: --invoices=N --rounds=R --duration=S --warmup=S --connections=C
                --lag-days=0|1 (unpaid invoices due yesterday: still open (1, default) or marked (0))
  create-contacts: --duration=S --rounds=R --connections=C
  auth-overhead: --requests=N
  webhook-delivery: --deliveries=N --samples=S
  isolate-pool: --boots=N --invokes=N --idle=N
  sync-planner: --records=N (per resource) --rounds=R
  clients: --invoices=N (at most 10,000) --passes=N --contacts=N --blocks=N --rounds=R
           (the Python rows' venv is made by TESSERA_TEST_PYTHON, else python3)
  function-invoke: --duration=S --warmup=S --rounds=R --connections=C
                   --subjects=hono,workerd,workerd-url,edge-runtime,tessera,tessera-url,tessera-traced
                   --baseline=<checkout> (also its tessera, loaded in the same rounds)
                   --baseline-node=<node binary> (the baseline's server on another Node.js)
                   --trace-sampler=NAME --trace-ratio=R (tessera-traced's OTEL_TRACES_SAMPLER, _ARG)`;

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.names.includes("help")) {
    console.log(USAGE);
    return 0;
  }
  const unknown = args.names.filter((name) => !BENCHMARKS.some((b) => b.name === name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(", ")}\n\n${USAGE}`);
    return 2;
  }
  const selected = args.names.length ? BENCHMARKS.filter((b) => args.names.includes(b.name)) : BENCHMARKS;
  const results: BenchResult[] = [];
  const crashes: Array<{ name: string; error: string }> = [];
  for (const benchmark of selected) {
    console.log(`${benchmark.name}${args.tiny ? " (tiny)" : ""}`);
    const started = performance.now();
    try {
      results.push(
        await benchmark.run({ tiny: args.tiny, flags: args.flags, log: (line) => console.log(line) }),
      );
      console.log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`  ${benchmark.name} crashed: ${message}`);
      crashes.push({ name: benchmark.name, error: message });
    }
  }
  console.log("\n" + table(results, args.tiny));
  const file = writeResults(args, results, crashes);
  console.log(`\nresults: ${file}`);
  if (crashes.length > 0) {
    console.error(`crashed: ${crashes.map((c) => c.name).join(", ")}`);
    return 1;
  }
  const missed = results.flatMap((r) => r.targets.filter((t) => !t.pass));
  return args.strict && missed.length > 0 ? 1 : 0;
}

function table(results: BenchResult[], tiny: boolean): string {
  // Ratios to two places: a target at 0.5× or 1× is not decided by "0.5 ×" or "1.0 ×".
  const format = (value: number, unit: string) =>
    unit === "ms" || unit === "×" ? `${value.toFixed(2)} ${unit}` : `${value.toFixed(1)} ${unit}`;
  const lines: string[][] = [
    [
      "benchmark",
      "subject",
      "median",
      "p99",
      "req/s",
      "vs anchor",
      "server CPU/req",
      "main thread/req",
      "generator",
    ],
  ];
  for (const result of results) {
    for (const row of result.rows) {
      lines.push([
        result.name,
        row.subject,
        format(row.median, row.unit),
        format(row.p99, row.unit),
        row.reqPerSec === undefined ? "" : Math.round(row.reqPerSec).toLocaleString("en-US"),
        row.versusAnchor ?? "",
        row.serverCpuUs ? `${row.serverCpuUs.process.toFixed(1)} µs` : "",
        row.serverCpuUs ? `${row.serverCpuUs.mainThread.toFixed(1)} µs` : "",
        row.generatorCpu ? `${row.generatorCpu.generator} ${row.generatorCpu.cores.toFixed(2)} core` : "",
      ]);
    }
  }
  const targets: string[][] = [["benchmark", "target", "measured", tiny ? "result (tiny size)" : "result"]];
  for (const result of results) {
    for (const t of result.targets) {
      targets.push([result.name, t.name, format(t.actual, t.unit), t.pass ? "PASS" : "MISS"]);
    }
  }
  return `${align(lines)}\n\n${align(targets)}`;
}

function align(lines: string[][]): string {
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((line) => line[i]!.length)));
  return lines
    .map((line) =>
      line
        .map((cell, i) => (i >= 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function writeResults(args: Args, results: BenchResult[], crashes: Array<{ name: string; error: string }>) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const date = new Date().toISOString();
  const report = {
    date,
    commit: git(["rev-parse", "--short", "HEAD"]),
    dirty: git(["status", "--porcelain"]) !== "",
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
    mode: args.tiny ? "tiny" : "full",
    flags: args.flags,
    results,
    crashes,
  };
  const file = `${RESULTS_DIR}${date.replace(/[:.]/g, "-")}-${report.mode}.json`;
  writeFileSync(file, JSON.stringify(report, null, 2) + "\n");
  writeFileSync(`${RESULTS_DIR}latest-${report.mode}.json`, JSON.stringify(report, null, 2) + "\n");
  return file;
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}

// Benchmarks that boot isolates in this process (isolate-pool) get the server's V8 flags.
setProcessV8Flags();
process.exitCode = await main();
