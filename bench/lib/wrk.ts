/**
 * Load from `wrk`, a native generator: one process, one thread, `connections`
 * keep-alive sockets in a closed loop. On this 2-core machine the Node client
 * (`node-load.ts`) saturated before a bare Hono server did, so every ratio against
 * Hono was a ratio against the client's ceiling; wrk needs a fraction of the CPU per
 * request. Its own CPU is still reported beside the server's, so that a saturated
 * generator shows instead of passing for a fast server.
 *
 * wrk has no warm-up: a warm-up is a run of its own whose numbers are dropped. A Lua
 * script sets the method, headers and body (a body template's `{n}` numbered per
 * request) and prints one line of JSON at the end: counts, the latency histogram and
 * wrk's own CPU time read from `/proc/self/stat`.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  cpuBetween,
  databaseBetween,
  serverCpuSnapshot,
  type Histogram,
  type LoadOptions,
  type LoadReport,
} from "./load-report.ts";

/** wrk's durations are whole seconds. */
const MIN_SECONDS = 1;
const REPORT_PREFIX = "wrk-report ";

/** Whether `wrk` is on the PATH; when not, and this is Debian as root, installs it once. */
export function wrkAvailable(log: (line: string) => void = () => {}): boolean {
  if (onPath("wrk")) return true;
  if (process.getuid?.() === 0 && onPath("apt-get")) {
    log("  wrk is missing: apt-get install wrk");
    try {
      execFileSync("apt-get", ["install", "-y", "-qq", "wrk"], { stdio: "ignore", timeout: 300_000 });
    } catch {
      return false;
    }
    return onPath("wrk");
  }
  return false;
}

function onPath(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export async function runWrk(options: LoadOptions): Promise<LoadReport> {
  const scratch = mkdtempSync(join(tmpdir(), "tessera-wrk-"));
  try {
    const script = join(scratch, "load.lua");
    writeFileSync(script, luaScript(options));
    if (options.warmupMs > 0) await wrk(options, script, options.warmupMs);
    const before = serverCpuSnapshot(options.observePid);
    const raw = await wrk(options, script, options.durationMs);
    const after = serverCpuSnapshot(options.observePid);
    return {
      generator: "wrk",
      requests: raw.requests,
      // wrk counts every answer with a status ≥ 400 as a "status error"; 3xx would pass unseen here,
      // but every benchmark checks its subject's answer before it loads it.
      errors: raw.connect + raw.read + raw.write + raw.timeout,
      non2xx: raw.status,
      windowMs: raw.durationUs / 1000,
      bytes: raw.bytes,
      latencyUs: raw.histogram,
      cpuS: cpuBetween(before, after, raw.cpuS),
      ...databaseBetween(before, after),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface WrkRaw {
  requests: number;
  durationUs: number;
  bytes: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  histogram: Histogram;
  cpuS: number;
}

function wrk(options: LoadOptions, script: string, durationMs: number): Promise<WrkRaw> {
  const seconds = Math.max(MIN_SECONDS, Math.round(durationMs / 1000));
  const args = [
    "-t1",
    `-c${options.connections}`,
    `-d${seconds}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    options.url,
  ];
  const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = stdout.split("\n").find((l) => l.startsWith(REPORT_PREFIX));
      if (code !== 0 || !line) {
        return reject(new Error(`wrk ${args.join(" ")} exited ${code}:\n${stdout}${stderr}`));
      }
      resolve(JSON.parse(line.slice(REPORT_PREFIX.length)) as WrkRaw);
    });
  });
}

/** The Lua script: the request wrk sends, and a `done` that prints the report as JSON. */
function luaScript(options: LoadOptions): string {
  const lua = (value: string) => JSON.stringify(value); // a JSON string is a valid Lua string here
  const headers = Object.entries({ accept: "application/json", ...options.headers })
    .map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`)
    .join("\n");
  const body =
    options.bodyTemplate === undefined
      ? ""
      : `wrk.headers["content-type"] = "application/json"
local template = ${lua(options.bodyTemplate)}
local n = 0
-- A request() makes wrk build each request anew: only bodies that must differ pay for it.
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, (template:gsub("{n}", tostring(n))))
end`;
  return `wrk.method = ${lua(options.method ?? "GET")}
${headers}
${body}

done = function(summary, latency, requests)
  local buckets = {}
  for i = 1, #latency do
    local value, count = latency(i)
    buckets[#buckets + 1] = string.format("[%d,%d]", value, count)
  end
  local stat = io.open("/proc/self/stat"):read("*a")
  local fields = {}
  for field in stat:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  local e = summary.errors
  io.write(string.format(
    '${REPORT_PREFIX}{"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"cpuS":%f,"histogram":[%s]}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    (tonumber(fields[12]) + tonumber(fields[13])) / 100, table.concat(buckets, ",")))
end
`;
}
