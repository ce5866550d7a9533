import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, DEFAULT_LIMITS, type IsolatePool, type SandboxLimits } from "../../sandbox/index.ts";
import {
  failure,
  fixture,
  json,
  key,
  LIMITS,
  loaderOf,
  recordingIO,
  request,
  SANDBOX_OPTIONS,
} from "./helpers.ts";

/**
 * The isolate boundary against hostile programs (one fixture per behaviour, as
 * Supabase's edge-runtime keeps them): each fails only its own request, with a code
 * that says which limit, and the next request gets a fresh isolate.
 */

/**
 * Filling a heap costs CPU (V8 collects harder as the limit nears: 64 MB of arrays
 * took 670 ms of CPU here), so the heap bomb gets a small heap and room to reach it:
 * what is tested is that the memory limit is the one that stops it.
 */
const HEAP_BOMB_LIMITS: SandboxLimits = { memoryLimitMb: 16, cpuTimeLimitMs: 5_000, wallTimeLimitMs: 10_000 };

const loader = (name: string, limits: SandboxLimits = name === "heap-bomb" ? HEAP_BOMB_LIMITS : LIMITS) =>
  loaderOf(fixture(name), limits);
const message = request;
const io = () => recordingIO();

describe("isolate pool", () => {
  let pool: IsolatePool;
  beforeEach(() => {
    pool = createSandbox(SANDBOX_OPTIONS);
  });
  afterEach(() => pool.dispose());

  it("answers a request and keeps the isolate warm between requests", async () => {
    const first = await pool.invoke(key("fn_echo"), loader("echo"), message(), io());
    expect(first.status).toBe(200);
    expect(await json(first)).toMatchObject({ method: "GET", url: "https://fn.example/hello", served: 1 });
    const second = await pool.invoke(key("fn_echo"), loader("echo"), message(), io());
    expect(await json(second)).toMatchObject({ served: 2 });
    expect((await pool.stats()).isolates).toBe(1);
  });

  it("never shares an isolate between organizations, or between versions", async () => {
    await pool.invoke(key("fn_tag", "org_a"), loader("set-tag"), message("https://a.example/secret"), io());
    // The same function id and version in another organization: its own isolate, its own globals.
    const other = await pool.invoke(key("fn_tag", "org_b"), loader("echo"), message(), io());
    expect(await json(other)).toMatchObject({ served: 1, tag: null });
    const nextVersion = await pool.invoke(key("fn_tag", "org_a", 2), loader("echo"), message(), io());
    expect(await json(nextVersion)).toMatchObject({ tag: null });
  });

  it("reaches nothing of the host: no require, process, Buffer or escape through constructors", async () => {
    const reply = await pool.invoke(key("fn_probe"), loader("probe-host"), message(), io());
    const reach = JSON.parse(reply.headers.find(([name]) => name === "x-reach")![1]) as Record<
      string,
      string
    >;
    expect(reach).toMatchObject({
      require: "undefined",
      process: "undefined",
      Buffer: "undefined",
      module: "undefined",
      global: "undefined",
      constructorEscape: "undefined",
      thisConstructorEscape: "undefined",
      asyncConstructorEscape: "undefined",
      internalsOnGlobal: "",
      hostLookingFunctions: "",
      // Error.prepareStackTrace sees no function of the platform: all of it is strict code.
      stackFunctions: 0,
      functionsWalked: "many",
    });
  });

  it.each([
    ["infinite-loop", "function_cpu_limit"],
    ["loop-after-await", "function_cpu_limit"],
    ["heap-bomb", "function_memory_limit"],
    ["throws-on-request", "function_failed"],
    ["bad-reply", "function_failed"],
    ["throws-on-boot", "function_failed"],
    ["loops-on-boot", "function_failed"],
    ["no-entry", "function_failed"],
  ])(
    "fails only the request of %s, with %s, and the next request gets a fresh isolate",
    async (name, code) => {
      const fault = await failure(pool.invoke(key(`fn_${name}`), loader(name), message(), io()));
      expect(fault.code).toBe(code);
      expect(fault.message).not.toMatch(/\/work\/|node_modules|\bat \S+:\d+/);
      // The faulty function fails again, cleanly, rather than wedging the pool.
      expect((await failure(pool.invoke(key(`fn_${name}`), loader(name), message(), io()))).code).toBe(code);
      // Others carry on.
      expect((await pool.invoke(key("fn_echo"), loader("echo"), message(), io())).status).toBe(200);
    },
  );

  it("times out a request that never resolves with function_timeout, and keeps serving others", async () => {
    const limits = { ...LIMITS, wallTimeLimitMs: 100 };
    const fault = failure(pool.invoke(key("fn_never"), loader("never-resolves", limits), message(), io()));
    const meanwhile = await pool.invoke(key("fn_echo"), loader("echo"), message(), io());
    expect(meanwhile.status).toBe(200);
    expect((await fault).code).toBe("function_timeout");
  });

  it("survives hundreds of hostile invocations (320), then serves normal traffic", async () => {
    const hostile = [
      "infinite-loop",
      "loop-after-await",
      "heap-bomb",
      "throws-on-request",
      "never-resolves",
      "bad-reply",
      "throws-on-boot",
      "loops-on-boot",
    ];
    const limits = { ...LIMITS, cpuTimeLimitMs: 50, wallTimeLimitMs: 300, memoryLimitMb: 16 };
    const codes = new Map<string, number>();
    for (let round = 0; round < 40; round++) {
      const results = await Promise.all(
        hostile.map((name) =>
          failure(
            pool.invoke(
              key(`fn_${name}`, `org_${round % 3}`),
              loader(name, name === "heap-bomb" ? HEAP_BOMB_LIMITS : limits),
              message(),
              io(),
            ),
          ),
        ),
      );
      for (const { code } of results) codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect([...codes.values()].reduce((a, b) => a + b, 0)).toBe(40 * hostile.length);
    expect([...codes.keys()].sort()).toEqual([
      "function_cpu_limit",
      "function_failed",
      "function_memory_limit",
      "function_timeout",
    ]);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => pool.invoke(key("fn_echo"), loader("echo"), message(), io())),
    );
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    // 320 isolates die and boot again: ~20 s on a busy 2-core machine, more than the default test time.
  }, 120_000);

  it("retires the least recently used idle isolate past the count", async () => {
    await using small = createSandbox({ ...SANDBOX_OPTIONS, maxIsolates: 2 });
    for (const id of ["fn_1", "fn_2", "fn_3", "fn_4"])
      await small.invoke(key(id), loader("echo"), message(), io());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await small.stats()).isolates).toBeLessThanOrEqual(2);
    // The retired one boots again from scratch.
    const again = await small.invoke(key("fn_1"), loader("echo"), message(), io());
    expect(await json(again)).toMatchObject({ served: 1 });
  });

  it("uses the default sandbox limits unless told otherwise", () => {
    expect(DEFAULT_LIMITS).toEqual({ memoryLimitMb: 128, cpuTimeLimitMs: 50, wallTimeLimitMs: 30_000 });
  });

  it("refuses work once disposed", async () => {
    await pool.dispose();
    expect((await failure(pool.invoke(key("fn_echo"), loader("echo"), message(), io()))).code).toBe(
      "disposed",
    );
  });
});
