import { spawn, spawnSync, type ChildProcess } from "node:child_process";

/**
 * `perf` over the server's main thread: every sample's whole stack, native and kernel frames
 * included (isolated-vm's crossing, V8's builtins, the socket writes), where `--cpu-prof` sees
 * JavaScript only and shows time inside a function's isolate as the host frame that entered it.
 * The server runs with `--perf-basic-prof-only-functions` so JIT frames have names; samples are
 * CPU-clock ticks (these VMs have no hardware counters), so they count on-CPU time only.
 */

/** The Node flags that let perf name JavaScript frames (guest frames show as `tessera:platform.js`). */
export const PERF_NODE_ARGS = ["--perf-basic-prof-only-functions", "--interpreted-frames-native-stack"];

export function perfAvailable(): boolean {
  return spawnSync("perf", ["--version"], { stdio: "ignore" }).status === 0;
}

/** Starts sampling thread `tid` for `seconds`, into `file`; resolves when perf has written it. */
export function recordThread(tid: number, seconds: number, file: string): Promise<void> {
  const perf: ChildProcess = spawn(
    "perf",
    [
      "record",
      "-e",
      "cpu-clock",
      "-F",
      "4000",
      "-g",
      "-t",
      String(tid),
      "-o",
      file,
      "--",
      "sleep",
      String(seconds),
    ],
    { stdio: "ignore" },
  );
  return new Promise((resolve, reject) => {
    perf.once("error", reject);
    perf.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`perf record exited with ${code}`)),
    );
  });
}

/**
 * Where an invocation's main-thread time goes, by the first of these found anywhere in a
 * sample's stack (so a sample inside the guest counts as the guest's, whatever called it).
 */
const BUCKETS: ReadonlyArray<readonly [string, RegExp]> = [
  ["isolate: the guest's JavaScript (platform and function)", /tessera:platform\.js|JS:\S* fn_/],
  ["isolate: isolated-vm's crossing (locks, copies, options)", /JS:\S*enter file/],
  [
    "pool, request state, invoker",
    /sandbox\/pool\.ts|sandbox\/request-state|runtime\/invoke\.ts|invocation-scope/,
  ],
  ["authentication and rate limit", /middleware\/auth\.ts|rate-limit|key-cache/],
  ["the response's write (end of turn, writev)", /end-of-turn|_http_outgoing|writev|StreamBase::Write/],
  ["the invocation adapter (api/invocation)", /api\/invocation\/|api\/server\.ts|observe|metrics/],
  ["Node's HTTP parser and request", /parserOn|llhttp|_http_incoming|_http_server|_http_common/],
  ["garbage collection", /Scavenge|GarbageCollect|Heap::|MarkCompact|Sweeper/],
  ["socket reads and epoll", /uv__read|uv__io_poll|epoll/],
  ["promise and microtask machinery", /RunMicrotasks|processTicksAndRejections|PromiseFulfill/],
];

export interface PerfSummary {
  samples: number;
  /** Share of the main thread's samples by bucket, largest first (`other` last). */
  buckets: Array<{ name: string; share: number }>;
  /** Leaf symbols by share of samples, largest first. */
  leaves: Array<{ name: string; share: number }>;
}

/** Reads `perf script` output of `file` into buckets and the busiest leaf symbols. */
export function summarizePerf(file: string, top = 25): PerfSummary {
  const script = spawnSync("perf", ["script", "-i", file, "-F", "ip,sym"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
  const stacks = script.stdout
    .split("\n\n")
    .map((block) =>
      block
        .split("\n")
        .map((line) => line.trim().replace(/^[0-9a-f]+ /, ""))
        .filter(Boolean),
    )
    .filter((stack) => stack.length > 0);
  const byBucket = new Map<string, number>();
  const byLeaf = new Map<string, number>();
  for (const stack of stacks) {
    const text = stack.join("\n");
    const bucket = BUCKETS.find(([, pattern]) => pattern.test(text))?.[0] ?? "other";
    byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + 1);
    const leaf = stack[0]!.replace(/\(.*$/, "").slice(0, 100);
    byLeaf.set(leaf, (byLeaf.get(leaf) ?? 0) + 1);
  }
  const shares = (counts: Map<string, number>) =>
    [...counts]
      .map(([name, n]) => ({ name, share: n / stacks.length }))
      .sort((a, b) => (a.name === "other" ? 1 : b.name === "other" ? -1 : b.share - a.share));
  return { samples: stacks.length, buckets: shares(byBucket), leaves: shares(byLeaf).slice(0, top) };
}
