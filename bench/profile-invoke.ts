/**
 * Not a benchmark, a microscope: `npm run bench:profile -- [trivial|url] [seconds] [connections] [--perf] [--anchor]`
 * starts `tessera serve --role api` under Node's `--cpu-prof`, deploys one of the
 * function-invoke functions, loads it with wrk for `seconds` (10) at `connections` (32),
 * prints the rate and the main thread's CPU per request, then where that thread's time
 * went: self time by function, busiest first. The `.cpuprofile` it names opens in Chrome
 * DevTools (Performance → Load profile) for the call tree.
 *
 * Time spent inside a function's isolate shows as the host frame that entered it
 * (`enter`, sandbox/isolate.ts): V8's profiler sees one isolate, and the guest runs in another.
 * With `--perf` (Linux `perf`, Debian's linux-perf), the main thread is sampled instead, every
 * frame named (guest, isolated-vm, V8, kernel), and its time per request is split by part of the
 * path (lib/perf-profile.ts).
 *
 * `--anchor` (with `--perf`) profiles the bare Hono anchor serving the same function instead, split
 * the same way: what Node's HTTP, the socket and the write cost it is what they cost Tessera too,
 * and the rest of Tessera's split is what it adds.
 */
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createApiKey, createOrganization, OPERATOR } from "../engines/index.ts";
import { createPostgresStore, migrate } from "../store/index.ts";
import { FUNCTIONS, QUERY, type FunctionName } from "./lib/invoke-function.ts";
import { benchDatabaseUrl, startTesseraApi } from "./lib/tessera-server.ts";
import { PERF_NODE_ARGS, perfAvailable, recordThread, summarizePerf } from "./lib/perf-profile.ts";
import type { LoadReport } from "./lib/load-report.ts";
import { NODE_TS, startListening } from "./lib/processes.ts";
import { runWrk } from "./lib/wrk.ts";

const INVOKE_SERVERS = fileURLToPath(new URL("./lib/invoke-servers.ts", import.meta.url));

const TOP = 40;
const usePerf = process.argv.includes("--perf");
const anchor = process.argv.includes("--anchor");
const args = process.argv.slice(2).filter((arg) => arg !== "--perf" && arg !== "--anchor");
const fn = (args[0] ?? "trivial") as FunctionName;
if (!(fn in FUNCTIONS)) throw new Error(`unknown function ${fn}: ${Object.keys(FUNCTIONS).join(" or ")}`);
const seconds = Number(args[1] ?? 10);
const connections = Number(args[2] ?? 32);
if (usePerf && !perfAvailable()) throw new Error("--perf needs Linux perf (apt-get install linux-perf)");
if (anchor && !usePerf) throw new Error("--anchor needs --perf");
const WARMUP_MS = 2000;

if (anchor) {
  const server = await startListening(
    [...NODE_TS.slice(0, 1), ...PERF_NODE_ARGS, ...NODE_TS.slice(1), INVOKE_SERVERS, "hono"],
    {},
  );
  const perfFile = join(mkdtempSync(join(tmpdir(), "tessera-profile-")), "perf.data");
  try {
    const report = await profileLoad(server.pid, `${server.url}/${fn}/42${QUERY}`, {}, perfFile);
    printPerf(`bare Hono, ${fn}`, report, perfFile, server.pid);
  } finally {
    await server.stop();
  }
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "tessera-profile-"));
const databaseUrl = await benchDatabaseUrl();
const store = createPostgresStore({ url: databaseUrl, poolSize: 1 });
let secrets: { write: string; read: string };
try {
  await migrate(store);
  const org = await createOrganization(store, { name: `profile-${Date.now()}`, plan: "enterprise" });
  const write = await createApiKey(store, org.id, { kind: "full_access", name: "profile deploy" }, OPERATOR);
  const read = await createApiKey(store, org.id, { kind: "read_only", name: "profile invoke" }, OPERATOR);
  secrets = { write: write.secret, read: read.secret };
} finally {
  await store.dispose();
}

const perfFile = join(dir, "perf.data");
const server = await startTesseraApi(databaseUrl, {
  nodeArgs: usePerf ? PERF_NODE_ARGS : ["--cpu-prof", `--cpu-prof-dir=${dir}`],
});
try {
  const deployed = await fetch(`${server.url}/v1/functions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secrets.write}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "profiled", files: { "index.js": FUNCTIONS[fn] } }),
  });
  if (deployed.status !== 201)
    throw new Error(`deploy answered ${deployed.status}: ${await deployed.text()}`);
  const report = await profileLoad(
    server.pid,
    `${server.url}/v1/functions/profiled/invoke/42${QUERY}`,
    { authorization: `Bearer ${secrets.read}` },
    usePerf ? perfFile : undefined,
  );
  if (usePerf) printPerf(fn, report, perfFile, server.pid);
  else printRate(fn, report);
} finally {
  // Always: a server left running keeps its database connections (ten of them fill PostgreSQL's 100).
  await server.stop();
}
if (usePerf) process.exit(0);

/** Loads `url` with wrk; with a perf file, samples the main thread (its id is the process's) through the measured window. */
async function profileLoad(
  pid: number,
  url: string,
  headers: Record<string, string>,
  perfFile: string | undefined,
): Promise<LoadReport> {
  const recorded = perfFile
    ? new Promise<void>((resolve, reject) =>
        setTimeout(
          () => recordThread(pid, Math.max(1, seconds - 1), perfFile).then(resolve, reject),
          WARMUP_MS + 500,
        ),
      )
    : undefined;
  const report = await runWrk({
    url,
    headers,
    connections,
    warmupMs: WARMUP_MS,
    durationMs: seconds * 1000,
    observePid: pid,
  });
  await recorded;
  return report;
}

function printRate(subject: string, report: LoadReport): void {
  const perRequestUs = (cpuS: number) => ((cpuS / report.requests) * 1e6).toFixed(1);
  console.log(
    `${subject}: ${Math.round(report.requests / (report.windowMs / 1000)).toLocaleString("en-US")} req/s; ` +
      `server CPU ${perRequestUs(report.cpuS.server)} µs/request, main thread ${perRequestUs(report.cpuS.serverMainThread)} µs ` +
      `(under the profiler, which adds its own)`,
  );
}

function printPerf(subject: string, report: LoadReport, perfFile: string, pid: number): void {
  printRate(subject, report);
  const mainThreadUs = (report.cpuS.serverMainThread / report.requests) * 1e6;
  const { samples, buckets, leaves } = summarizePerf(perfFile);
  console.log(`\nmain thread, ${samples.toLocaleString("en-US")} samples, by part of the path:`);
  for (const { name, share } of buckets) {
    console.log(
      `${(100 * share).toFixed(1).padStart(5)} %  ${(share * mainThreadUs).toFixed(1).padStart(6)} µs  ${name}`,
    );
  }
  console.log("\nbusiest leaf frames:");
  for (const { name, share } of leaves) console.log(`${(100 * share).toFixed(1).padStart(5)} %  ${name}`);
  console.log(`\nperf data: ${perfFile} (perf report -i …; its JIT names need /tmp/perf-${pid}.map)`);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
// The main thread's profile is the largest (tsx's loader thread writes one too).
const files = readdirSync(dir).filter((file) => file.endsWith(".cpuprofile"));
const [file] = files
  .map((name) => ({ name, text: readFileSync(join(dir, name), "utf8") }))
  .sort((a, b) => b.text.length - a.text.length);
if (!file) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(file.text) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byFunction = new Map<string, number>();
let busyUs = 0;
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (node.callFrame.functionName === "(idle)") continue;
  busyUs += us;
  const where = node.callFrame.url.replace(/^.*\/(node_modules\/)?/, "");
  const name = `${node.callFrame.functionName || "(anonymous)"}  ${where}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
}
console.log(`\nmain thread, busy ${(busyUs / 1e6).toFixed(1)} s (start-up included), self time:`);
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
  console.log(`${((100 * us) / busyUs).toFixed(1).padStart(5)} %  ${name}`);
}
console.log(`\nprofile: ${join(dir, file.name)}`);
