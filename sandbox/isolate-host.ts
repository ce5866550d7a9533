import ivm from "isolated-vm";
import { AppError, isAppError } from "../core/index.ts";
import type { SandboxLimits } from "./limits.ts";
import { GUEST_ENTRY, GuestReplySchema, type GuestMessage, type GuestReply } from "./protocol.ts";

/** A guest program: one script (already bundled) that defines the dispatch entry. */
export interface GuestProgram {
  code: string;
  /** Shown in stack traces, e.g. `fn_3kTq@v2.js`. */
  filename: string;
  /** V8 code cache this server produced for `code`; never taken from a tenant (it is machine code). */
  cachedData?: Uint8Array;
}

export interface IsolateHostOptions {
  program: GuestProgram;
  limits: SandboxLimits;
  /** Startup snapshot of the in-isolate platform, when the runtime provides one. */
  snapshot?: ivm.ExternalCopy<ArrayBuffer>;
  /** How often the CPU watchdog looks, ms. */
  watchdogIntervalMs?: number;
}

/** One isolate running one deployed version of one organization's function. */
export interface IsolateHost {
  /** False once the isolate is gone (heap exhausted, CPU limit, disposed): the pool replaces it. */
  readonly healthy: boolean;
  readonly inFlight: number;
  /** V8 code cache for the program, when this boot produced one (store it with the deployment). */
  readonly producedCachedData: Uint8Array | undefined;
  invoke(message: GuestMessage): Promise<GuestReply>;
  heapUsedBytes(): number;
  dispose(): void;
}

/**
 * Boots an isolate with `program` and returns its host, or throws `function_failed`
 * (the program threw, looped or exhausted its heap at boot; its isolate is gone).
 *
 * Limits (isolated-vm 5 on Node 20): the heap limit disposes the isolate itself;
 * `timeout` only bounds synchronous runs, so CPU time is also watched from the host
 * (`isolate.cpuTime`) and the isolate disposed when a request exceeds it, which stops
 * code that loops after an `await` too. Wall time fails the request, not the isolate.
 */
export async function createIsolateHost(options: IsolateHostOptions): Promise<IsolateHost> {
  const { program, limits } = options;
  const isolate = new ivm.Isolate({
    memoryLimit: limits.memoryLimitMb,
    ...(options.snapshot ? { snapshot: options.snapshot } : {}),
  });
  let producedCachedData: Uint8Array | undefined;
  let dispatch: ivm.Reference<(message: string) => Promise<string>>;
  try {
    const context = await isolate.createContext();
    const cachedData = program.cachedData
      ? new ivm.ExternalCopy(program.cachedData.slice().buffer)
      : undefined;
    const script = (await isolate.compileScript(program.code, {
      filename: program.filename,
      ...(cachedData ? { cachedData } : { produceCachedData: true }),
    })) as ivm.Script & ivm.CachedDataResult;
    if (script.cachedData) producedCachedData = new Uint8Array(script.cachedData.copy());
    // Boot gets the wall time limit for its synchronous top level (module evaluation).
    await script.run(context, { timeout: limits.wallTimeLimitMs });
    dispatch = (await context.global.get(GUEST_ENTRY, { reference: true })) as typeof dispatch;
    if (dispatch.typeof !== "function") {
      throw new Error(`the program does not define globalThis.${GUEST_ENTRY}`);
    }
  } catch (cause) {
    if (!isolate.isDisposed) isolate.dispose();
    throw new AppError("function_failed", `The function failed to start: ${guestMessage(cause)}`, { cause });
  }

  let inFlight = 0;
  let killedForCpu = false;
  const watchdogMs = options.watchdogIntervalMs ?? Math.max(1, Math.min(10, limits.cpuTimeLimitMs / 5));
  const cpuLimitNs = BigInt(limits.cpuTimeLimitMs) * 1_000_000n;

  const invoke = async (message: GuestMessage): Promise<GuestReply> => {
    if (isolate.isDisposed) throw new AppError("function_failed", "The function's isolate is gone");
    inFlight++;
    const cpuAtStart = isolate.cpuTime;
    let watchdog: NodeJS.Timeout | undefined;
    let wallTimer: NodeJS.Timeout | undefined;
    let overCpu = false;
    try {
      const reply = dispatch.apply(undefined, [JSON.stringify(message)], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
        // Wall time, not CPU: on a busy machine a synchronous run can take longer than its
        // CPU time; the watchdog below counts the CPU the isolate really used.
        timeout: limits.wallTimeLimitMs,
      }) as Promise<unknown>;
      const limited = new Promise<never>((_, reject) => {
        watchdog = setInterval(() => {
          if (isolate.isDisposed || isolate.cpuTime - cpuAtStart <= cpuLimitNs) return;
          overCpu = true;
          killedForCpu = true;
          isolate.dispose();
        }, watchdogMs);
        wallTimer = setTimeout(
          () =>
            reject(
              new AppError(
                "function_timeout",
                `The function did not answer within ${limits.wallTimeLimitMs} ms`,
              ),
            ),
          limits.wallTimeLimitMs,
        );
      });
      const raw = await Promise.race([reply, limited]);
      return parseReply(raw);
    } catch (cause) {
      throw classify(cause, { overCpu, killedForCpu, isolate, limits });
    } finally {
      clearInterval(watchdog);
      clearTimeout(wallTimer);
      inFlight--;
    }
  };

  return {
    get healthy() {
      return !isolate.isDisposed;
    },
    get inFlight() {
      return inFlight;
    },
    producedCachedData,
    invoke,
    heapUsedBytes: () => (isolate.isDisposed ? 0 : isolate.getHeapStatisticsSync().used_heap_size),
    dispose: () => {
      if (!isolate.isDisposed) isolate.dispose();
    },
  };
}

function parseReply(raw: unknown): GuestReply {
  let value: unknown;
  try {
    value = typeof raw === "string" ? JSON.parse(raw) : undefined;
  } catch {
    value = undefined;
  }
  const parsed = GuestReplySchema.safeParse(value);
  if (!parsed.success) {
    throw new AppError("function_failed", "The function answered something that is not a response");
  }
  return parsed.data;
}

/** Turns whatever ended a request into the code that says which limit, or that it threw. */
function classify(
  cause: unknown,
  state: { overCpu: boolean; killedForCpu: boolean; isolate: ivm.Isolate; limits: SandboxLimits },
): AppError {
  if (isAppError(cause)) return cause;
  const message = guestMessage(cause);
  if (/Script execution timed out/.test(message) && !state.overCpu) {
    if (!state.isolate.isDisposed) state.isolate.dispose();
    return new AppError(
      "function_timeout",
      `The function did not answer within ${state.limits.wallTimeLimitMs} ms`,
      { cause },
    );
  }
  if (state.overCpu) {
    if (!state.isolate.isDisposed) state.isolate.dispose();
    return new AppError(
      "function_cpu_limit",
      `The function used more than ${state.limits.cpuTimeLimitMs} ms of CPU time`,
      { cause },
    );
  }
  if (/memory limit/i.test(message)) {
    return new AppError(
      "function_memory_limit",
      `The function exceeded its ${state.limits.memoryLimitMb} MB memory limit`,
      { cause },
    );
  }
  if (state.isolate.isDisposed) {
    const why = state.killedForCpu ? "another request exceeded the CPU limit" : "it was disposed";
    return new AppError("function_failed", `The function's isolate was recycled: ${why}`, { cause });
  }
  return new AppError("function_failed", `The function threw: ${message}`, { cause });
}

/** The guest's error message, without host stack frames. */
function guestMessage(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  return message.split("\n")[0]!.slice(0, 500);
}
