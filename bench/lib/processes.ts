import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { LoadOptions, LoadReport } from "./load-report.ts";
import { runWrk, wrkAvailable } from "./wrk.ts";

export interface ListeningProcess {
  url: string;
  pid: number;
  /** Sends SIGTERM and resolves when the process has exited. */
  stop: () => Promise<void>;
}

/**
 * What each process started here has printed, by pid, while it runs: a load that fails names the
 * reason its server logged ("too many clients already"), not only a count of non-2xx answers.
 */
const outputs = new Map<number, () => string>();

/** The last `count` lines process `pid` printed, if it was started here and still runs. */
function lastLines(pid: number | undefined, count: number): string | undefined {
  const output = pid === undefined ? undefined : outputs.get(pid)?.();
  return output?.trim().split("\n").slice(-count).join("\n") || undefined;
}

/** Node with the tsx loader, as `npm run bench` itself runs. */
export const NODE_TS = [process.execPath, "--import", "tsx"];

/** Starts a process that prints `listening on http://…` and waits for that line. */
export function startListening(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ListeningProcess> {
  const child = spawn(args[0]!, args.slice(1), {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const pid = child.pid;
  if (pid !== undefined) {
    outputs.set(pid, () => output);
    void exited.then(() => outputs.delete(pid));
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not start:\n${output}`));
    }, timeoutMs);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      resolve({ url: match[1]!, pid: child.pid!, stop: () => stop(child, exited) });
    };
    child.stdout.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code}:\n${output}`));
    });
  });
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Runs a process to completion and parses the last line it printed as JSON. */
export function runForJson<T>(args: string[]): Promise<T> {
  const child = spawn(args[0]!, args.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      const last = stdout.trim().split("\n").pop() ?? "";
      if (code !== 0 || !last) return reject(new Error(`${args.join(" ")} exited ${code}:\n${stderr}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch (error) {
        reject(new Error(`unparsable output of ${args[0]}: ${String(error)}`));
      }
    });
  });
}

const NODE_LOAD = fileURLToPath(new URL("./node-load.ts", import.meta.url));
let generator: LoadReport["generator"] | undefined;

function chooseGenerator(log: (line: string) => void): LoadReport["generator"] {
  if (generator) return generator;
  if (process.env.BENCH_LOAD === "node") generator = "node";
  else if (wrkAvailable(log)) generator = "wrk";
  else {
    log("  wrk is not available: the Node client drives the load, and may saturate before a server");
    generator = "node";
  }
  return generator;
}

/**
 * One load run: from `wrk` (installed when missing, where it can be), or from the Node
 * client when `BENCH_LOAD=node` or wrk cannot be had. Any error or non-2xx answer fails
 * the benchmark: a fast refusal (a 429 from a rate limit) must never pass for speed.
 */
export async function runLoad(
  load: LoadOptions,
  log: (line: string) => void = () => {},
): Promise<LoadReport> {
  const report =
    chooseGenerator(log) === "wrk"
      ? await runWrk(load)
      : await runForJson<LoadReport>([...NODE_TS, NODE_LOAD, JSON.stringify(load)]);
  if (report.errors > 0 || report.non2xx > 0) {
    const said = lastLines(load.observePid, 5);
    throw new Error(
      `${report.errors} errors and ${report.non2xx} non-2xx answers` +
        `${report.firstBadStatus === undefined ? "" : ` (first ${report.firstBadStatus})`} ` +
        `out of ${report.requests} requests to ${load.url} (${report.generator})` +
        (said ? `; the server's last lines:\n${said}` : ""),
    );
  }
  if (report.database) {
    const perRequest = (n: number) => n / report.requests;
    log(
      `    ${Math.round(report.requests / (report.windowMs / 1000)).toLocaleString("en-US")} req/s: ` +
        `server ${(perRequest(report.cpuS.server) * 1e6).toFixed(1)} µs CPU/req, ` +
        `PostgreSQL ${(perRequest(report.database.backendCpuS) * 1e6).toFixed(1)} µs CPU/req, ` +
        `${perRequest(report.database.statements).toFixed(2)} statements/req`,
    );
  }
  return report;
}
