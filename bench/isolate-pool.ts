import { runInNewContext } from "node:vm";
import { compileFunction, stopCompiler } from "../runtime/index.ts";
import {
  buildGuestPlatform,
  createSandbox,
  type InvocationIO,
  type InvocationRequest,
  type InvocationResponse,
  type LoadedFunction,
  type Sandbox,
  type SandboxLimits,
} from "../sandbox/index.ts";
import {
  numberFlag,
  target,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
  type ResultRow,
} from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

/** The trivial function of the targets: one handler, one small text response. */
const TRIVIAL = `export default { fetch: (request) => new Response("ok " + request.method) };`;
const LIMITS: SandboxLimits = { memoryLimitMb: 32, cpuTimeLimitMs: 1_000, wallTimeLimitMs: 5_000 };
const SIZES = {
  full: { boots: 300, invokes: 20_000, idle: 1_000 },
  tiny: { boots: 20, invokes: 500, idle: 20 },
};
const REQUEST: InvocationRequest = {
  requestId: "req_bench",
  method: "GET",
  url: "https://fn.example/",
  headers: [],
  body: null,
  context: { user: null },
};
const IO: InvocationIO = {
  fetch: () => Promise.reject(new Error("no network in the benchmark")),
  call: () => Promise.resolve(null),
  snapshot: () => null,
  log: () => {},
};

/** The whole response body as text (then `finished`). */
async function text(response: InvocationResponse): Promise<string> {
  let body = "";
  const decoder = new TextDecoder();
  if (typeof response.body === "string") body = response.body;
  else if (response.body instanceof Uint8Array) body = decoder.decode(response.body);
  else if (response.body) {
    for await (const chunk of response.body) body += decoder.decode(chunk, { stream: true });
    body += decoder.decode();
  }
  await response.finished;
  return body;
}

/** Reads the whole response the way the runtime will (body to the end, then `finished`). */
async function drain(response: InvocationResponse): Promise<number> {
  let bytes = 0;
  if (typeof response.body === "string") bytes += Buffer.byteLength(response.body);
  else if (response.body instanceof Uint8Array) bytes += response.body.byteLength;
  else if (response.body) for await (const chunk of response.body) bytes += chunk.byteLength;
  await response.finished;
  return bytes;
}

export const isolatePool: Benchmark = {
  name: "isolate-pool",
  summary: "isolate cold boot, warm invocation overhead and idle memory (host side) vs node:vm",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const boots = numberFlag(options.flags, "boots", size.boots);
    const invokes = numberFlag(options.flags, "invokes", size.invokes);
    const idle = numberFlag(options.flags, "idle", size.idle);

    const code = (await compileFunction({ "index.ts": TRIVIAL }, "index.ts", { maxBundleBytes: 1 << 20 }))
      .code;
    await stopCompiler();
    const platformStarted = performance.now();
    const platform = await buildGuestPlatform();
    const platformMs = performance.now() - platformStarted;
    platform.snapshot.release();
    options.log(
      `  platform ${Math.round(platform.code.length / 1024)} kB, ready in ${platformMs.toFixed(0)} ms`,
    );

    options.log(`  ${boots} cold starts (no code cache, with it, with it and no spare isolate)`);
    const { cold, cached, cachedNoSpare } = await coldStarts(code, boots);
    const vmCold = await vmColdStarts(code, boots);

    options.log(`  ${invokes} warm invocations`);
    const warm = await warmInvocations(code, invokes);
    const vmWarm = await vmInvocations(code, invokes);

    options.log(`  ${idle} warm idle isolates`);
    const memory = await idleIsolates(code, idle);
    options.log(
      `  idle: ${memory.rssKbPerIsolate.toFixed(0)} kB RSS, ${memory.heapUsedKbPerIsolate.toFixed(0)} kB V8 heap used per isolate; ` +
        `${memory.answeredAgain}/${idle} answered again after idling (${memory.againUs.toFixed(0)} µs each)`,
    );

    const overheadUs = warm.median - vmWarm.median;
    return {
      name: "isolate-pool",
      description: `host side, ${boots} boots, ${invokes} invocations, ${idle} idle isolates`,
      params: { boots, invokes, idle, limits: LIMITS },
      rows: [
        row("cold start, no code cache", cold, "µs", vmCold),
        row("cold start, V8 code cache", cached, "µs", vmCold),
        row("cold start, V8 code cache, no spare isolate ready", cachedNoSpare, "µs", vmCold),
        row("anchor: node:vm new context + run + call", vmCold, "µs"),
        row("warm invoke via pool", warm, "µs", vmWarm),
        row("anchor: direct call in node:vm", vmWarm, "µs"),
      ],
      targets: [
        target("cold start p50 ≤ 5 ms", cached.median / 1000, "<", 5.001, "ms"),
        target("cold start p99 ≤ 20 ms", cached.p99 / 1000, "<", 20.001, "ms"),
        target("warm overhead p50 ≤ 50 µs", overheadUs, "<", 50.001, "µs"),
        target(`${idle} idle isolates ≤ 3 GB RSS`, memory.rssMb * (1000 / idle), "<", 3072, "MB per 1,000"),
        target(
          `${idle} idle isolates ≤ 1.5 GB RSS (issue 39)`,
          memory.rssMb * (1000 / idle),
          "<",
          1536,
          "MB per 1,000",
        ),
        target(
          `${idle} idle isolates answer again after idling`,
          memory.answeredAgain,
          ">=",
          idle,
          "isolates",
        ),
      ],
      details: {
        platformMs,
        platformBytes: platform.code.length,
        cold,
        cached,
        cachedNoSpare,
        vmCold,
        warm,
        vmWarm,
        overheadUs,
        memory,
      },
    };
  },
};

function row(
  subject: string,
  s: ReturnType<typeof summarize>,
  unit: "ms" | "µs",
  anchor?: ReturnType<typeof summarize>,
): ResultRow {
  return {
    subject,
    unit,
    median: s.median,
    p99: s.p99,
    reqPerSec: 1e6 / s.mean,
    versusAnchor: anchor ? `${(s.median / anchor.median).toFixed(1)}× median` : "1.0×",
  };
}

async function coldStarts(code: string, boots: number) {
  const sandbox = createSandbox({ maxIsolates: 10, memoryBudgetMb: 1024, idleTimeoutMs: 60_000 });
  try {
    // The first boot builds the sandbox's platform: outside the samples.
    const probe = await sandbox.createHost({ program: { code, filename: "fn.js" }, limits: LIMITS });
    const cachedData = probe.producedCachedData;
    await probe.dispose();
    return {
      cold: await coldBoots(sandbox, code, boots, undefined),
      cached: await coldBoots(sandbox, code, boots, cachedData),
      // A burst of cold starts outruns the blank isolates made ahead of time: this is each one's cost then.
      cachedNoSpare: await coldBoots(sandbox, code, boots, cachedData, false),
    };
  } finally {
    await sandbox.dispose();
  }
}

async function coldBoots(
  sandbox: Sandbox,
  code: string,
  count: number,
  cachedData: Uint8Array | undefined,
  useSpare = true,
) {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    // Cold starts with gaps between them, as a server sees them: the blank isolate is made in the gap.
    if (useSpare) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = performance.now();
    const host = await sandbox.createHost({
      program: { code, filename: "fn.js", ...(cachedData ? { cachedData } : {}) },
      limits: LIMITS,
      useSpare,
    });
    await drain(await host.invoke(REQUEST, IO));
    samples.push((performance.now() - started) * 1000);
    await host.dispose();
  }
  return summarize(samples);
}

/** The program in a fresh node:vm context with Node's own web classes, then one call. */
async function vmColdStarts(code: string, count: number) {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const handler = vmHandler(code);
    await (await handler(new Request(REQUEST.url))).text();
    samples.push((performance.now() - started) * 1000);
  }
  return summarize(samples);
}

function vmHandler(code: string): (request: Request) => Promise<Response> {
  const sandbox: Record<string, unknown> = { Response, Request, Headers };
  runInNewContext(code, sandbox);
  const module = sandbox.__tessera_module as { default: { fetch: (request: Request) => Response } };
  return async (request) => module.default.fetch(request);
}

async function warmInvocations(code: string, count: number) {
  const pool = createSandbox({ maxIsolates: 10, memoryBudgetMb: 1024, idleTimeoutMs: 60_000 });
  const load = (): Promise<LoadedFunction> =>
    Promise.resolve({ program: { code, filename: "fn.js" }, limits: LIMITS, env: {} });
  const key = { orgId: "org_bench", functionId: "fn_trivial", version: 1 };
  try {
    for (let i = 0; i < 200; i++) await drain(await pool.invoke(key, load, REQUEST, IO));
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await drain(await pool.invoke(key, load, REQUEST, IO));
      samples.push((performance.now() - started) * 1000);
    }
    return summarize(samples);
  } finally {
    await pool.dispose();
  }
}

async function vmInvocations(code: string, count: number) {
  const handler = vmHandler(code);
  const samples: number[] = [];
  for (let i = 0; i < 200 + count; i++) {
    const started = performance.now();
    await (await handler(new Request(REQUEST.url))).text();
    if (i >= 200) samples.push((performance.now() - started) * 1000);
  }
  return summarize(samples);
}

async function idleIsolates(code: string, count: number) {
  const pool = createSandbox({
    maxIsolates: count + 1,
    memoryBudgetMb: 1 << 20,
    idleTimeoutMs: 3_600_000,
  });
  const load = (): Promise<LoadedFunction> =>
    Promise.resolve({ program: { code, filename: "fn.js" }, limits: LIMITS, env: {} });
  try {
    // The sandbox's platform (built by its first boot) is not an idle isolate's memory.
    await (
      await pool.createHost({ program: { code, filename: "fn.js" }, limits: LIMITS, useSpare: false })
    ).dispose();
    global.gc?.();
    const before = process.memoryUsage().rss;
    for (let i = 0; i < count; i++) {
      await drain(
        await pool.invoke({ orgId: `org_${i}`, functionId: "fn_trivial", version: 1 }, load, REQUEST, IO),
      );
    }
    const rssMb = (process.memoryUsage().rss - before) / (1024 * 1024);
    const stats = await pool.stats();
    // Issue 39: each idle isolate's first invocation after idling must still answer correctly.
    let answeredAgain = 0;
    const againStarted = performance.now();
    for (let i = 0; i < count; i++) {
      const response = await pool.invoke(
        { orgId: `org_${i}`, functionId: "fn_trivial", version: 1 },
        load,
        REQUEST,
        IO,
      );
      if ((await text(response)) === "ok GET") answeredAgain++;
    }
    const againUs = ((performance.now() - againStarted) * 1000) / count;
    return {
      isolates: stats.isolates,
      rssMb,
      heapUsedMb: stats.heapUsedBytes / (1024 * 1024),
      rssKbPerIsolate: (rssMb * 1024) / count,
      heapUsedKbPerIsolate: stats.heapUsedBytes / 1024 / Math.max(1, stats.isolates),
      answeredAgain,
      againUs,
    };
  } finally {
    await pool.dispose();
  }
}
