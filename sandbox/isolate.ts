import { randomBytes } from "node:crypto";
import ivm, { type IsolatedVM } from "./isolated-vm/index.ts";
import { AppError, disposable, isAppError, type Disposable } from "../core/index.ts";
import { createCompressionHost } from "./compression.ts";
import { createCryptoHost } from "./subtle.ts";
import type { FunctionFileSet } from "./function-files.ts";
import type { GuestProgram } from "./program.ts";
import type { InvocationIO, InvocationRequest, InvocationResponse, LogLevel } from "./invocation.ts";
import type { SandboxLimits } from "./limits.ts";
import type { GuestModule, GuestPlatform } from "./web-platform.ts";
import {
  FetchCallSchema,
  OpCallSchema,
  SLOTLESS_OPS,
  answerText,
  parseGuestOp,
  type GuestEntry,
  type KnownHeaderPairs,
  type RespondArgs,
} from "./protocol.ts";
import { createRequestState, type RequestOwner, type RequestState } from "./request-state.ts";
import { createGuestSockets } from "./socket.ts";
import type { SpareIsolates } from "./spares.ts";
import type { Watchdog } from "./watchdog.ts";

export interface IsolateHostOptions {
  program: GuestProgram;
  limits: SandboxLimits;
  /** Secrets: `Deno.env` and the `env` argument; fixed for the isolate's life. */
  env?: Record<string, string>;
  /** The files it was deployed with (`Deno.readFile`), held here and read through sync ops; none: an empty root. */
  files?: FunctionFileSet;
  /** Take a blank isolate made ahead of time, if one is ready (default true; benchmarks turn it off). */
  useSpare?: boolean;
}

/**
 * What the isolate hosts of one sandbox share. `createSandbox` makes it and hands it to
 * every host it boots: nothing of it is module state, so two sandboxes share nothing.
 */
export interface IsolateHostDeps {
  /** The sandbox's guest platform (built on its first cold start, then kept). */
  platform(): Promise<GuestPlatform>;
  watchdog: Watchdog;
  spares: SpareIsolates;
  /** Context objects' JSON, by identity: a runtime hands the same object to all of one caller's requests. */
  contextTexts: WeakMap<object, string>;
  knownPairs: KnownHeaderPairs;
  /** Every booted host not disposed yet: the sandbox disposes them with itself. */
  hosts: Set<IsolateHost>;
}

/** One isolate running one deployed version of one organization's function. */
export interface IsolateHost extends Disposable {
  /** False once the isolate is gone (heap exhausted, CPU limit, disposed): the pool replaces it. */
  readonly healthy: boolean;
  readonly inFlight: number;
  /** zlib contexts its requests' compression streams hold now (each is destroyed with its request). */
  readonly compressionStreams: number;
  /** V8 code cache for the program, when this boot produced one (store it with the deployment). */
  readonly producedCachedData: Uint8Array | undefined;
  invoke(request: InvocationRequest, io: InvocationIO): Promise<InvocationResponse>;
  heapUsedBytes(): number;
}

/** Timers one request may have pending at once. */
const MAX_TIMERS_PER_REQUEST = 10_000;
/** An entry may take this many times the CPU left to its request in wall time (plus WALL_SLACK_MS) before it is stopped. */
const WALL_SLACK = 2;
const WALL_SLACK_MS = 10;
/** isolated-vm's message for an entry stopped by its `timeout`; the watchdog's stop is reported the same. */
const TIMED_OUT = "Script execution timed out";
const COPY_ARGUMENTS = { arguments: { copy: true } } as const;

/**
 * Primitives cross into an isolate as values without options; an options object is read key by
 * key through V8's API on every call (~1 µs of a trivial invocation's main thread, `perf`), so an
 * entry with only primitives (a GET's "request", most "timer" and "pull" entries) passes none.
 */
function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== "object" && typeof value !== "function");
}

/**
 * Boots an isolate from the platform snapshot, runs `program` in it and returns its
 * host, or throws `function_failed` (the program threw, looped, exhausted its heap or
 * declared no handler at boot; its isolate is gone).
 *
 * Every later entry into the guest is a synchronous `applySync` bounded by the remaining
 * CPU budget of the request it belongs to (in wall time, with slack): the process's
 * watchdog (`watchdog.ts`) disposes the isolate of an entry past that deadline, or, when
 * the watchdog is not running, isolated-vm's `timeout` stops it. isolated-vm runs the
 * microtask checkpoint inside that call and the bound covers it, so `await null; for(;;){}`
 * is stopped too (test/sandbox/bridge.test.ts). Entries never run in parallel with
 * Node, so the guest cannot run unobserved.
 */
export async function createIsolateHost(
  options: IsolateHostOptions,
  deps: IsolateHostDeps,
): Promise<IsolateHost> {
  const { program, limits } = options;
  const { spares, contextTexts, knownPairs } = deps;
  const platform = await deps.platform();
  const spare = options.useSpare === false ? undefined : spares.take(limits.memoryLimitMb);
  const isolate =
    spare?.isolate ?? new ivm.Isolate({ memoryLimit: limits.memoryLimitMb, snapshot: platform.snapshot });
  const requests = new Map<number, RequestState>();
  const crypto = createCryptoHost();
  const compression = createCompressionHost(limits);
  const originMs = performance.now();
  const cpuLimitNs = BigInt(limits.cpuTimeLimitMs) * 1_000_000n;
  let producedCachedData: Uint8Array | undefined;
  let dispatch: IsolatedVM.Reference<(...args: unknown[]) => unknown>;
  let entering = false;
  let nextSlot = 1;
  /** Context objects by the id the guest knows them by (`invoke`). */
  const contextIds = new WeakMap<object, number>();
  let nextContextId = 1;
  const guard = deps.watchdog;
  /** The isolate's id with the watchdog, once booted (0 before: boot entries have their own timeouts). */
  let watchId = 0;
  const sockets = createGuestSockets(enter);

  /** One entry into the guest for `state`, bounded by what is left of its CPU budget. */
  function enter(state: RequestState, kind: GuestEntry, ...args: unknown[]): void {
    if (state.ended) return;
    if (isolate.isDisposed) {
      // Stopped by the watchdog just after an entry returned, or disposed from outside.
      recycle("the isolate was stopped");
      return;
    }
    if (entering) {
      // A host callback never re-enters the guest synchronously: the entry waits its turn.
      queueMicrotask(() => enter(state, kind, ...args));
      return;
    }
    const leftNs = cpuLimitNs - state.cpuNs;
    if (leftNs <= 0n) {
      state.fail(cpuLimitError(limits));
      return;
    }
    // Wall time, as isolated-vm's timeout counts it: on a busy machine an entry takes longer than
    // the CPU it uses, so it gets slack here; the CPU it really used is counted just below.
    const wallMs = Math.ceil((Number(leftNs) / 1e6) * WALL_SLACK) + WALL_SLACK_MS;
    entering = true;
    const before = isolate.cpuTime;
    const watched = watchId !== 0 && guard.arm(watchId, wallMs);
    let failure: unknown;
    let failed = false;
    let answer: unknown;
    try {
      answer = dispatch.applySync(
        undefined,
        [kind, state.slot, ...args],
        watched
          ? args.every(isPrimitive)
            ? undefined
            : COPY_ARGUMENTS
          : { arguments: { copy: true }, timeout: wallMs },
      );
    } catch (cause) {
      failure = cause;
      failed = true;
    } finally {
      entering = false;
      if (watched && guard.disarm()) {
        // The watchdog stopped this entry (or is about to): the same fault as a timeout.
        failure = new Error(TIMED_OUT);
        failed = true;
      }
      if (!isolate.isDisposed) state.cpuNs += isolate.cpuTime - before;
    }
    if (failed) {
      entryFailed(state, failure);
      return;
    }
    // A "request" entry returns the answer its handler gave at once (protocol.ts, `answerText`).
    if (typeof answer === "string") answered(state, answer);
    // Over its budget within the slack: the request fails, the isolate (not stopped mid-run) stays.
    if (!state.ended && !isolate.isDisposed && state.cpuNs > cpuLimitNs) state.fail(cpuLimitError(limits));
  }

  function answered(state: RequestState, text: string): void {
    const args = answerText(text, knownPairs);
    if (args) state.respond(...args);
    else state.fail(new AppError("function_failed", "The function's response could not be read"));
  }

  /** Whatever escaped an entry: a limit (the isolate goes), or the guest's own throw or unhandled rejection. */
  function entryFailed(state: RequestState, cause: unknown): void {
    const message = guestMessage(cause);
    const timedOut = message.startsWith(TIMED_OUT);
    if (timedOut || isolate.isDisposed || /memory limit/i.test(message)) {
      const fault = timedOut
        ? cpuLimitError(limits, cause)
        : new AppError(
            "function_memory_limit",
            `The function exceeded its ${limits.memoryLimitMb} MB memory limit`,
            {
              cause,
            },
          );
      state.fail(fault);
      recycle(
        fault.code === "function_cpu_limit"
          ? "another request exceeded the CPU limit"
          : "another request exhausted the memory",
      );
      return;
    }
    state.io.log("error", `Uncaught ${stackOf(cause)}`);
    state.fail(new AppError("function_failed", `The function threw: ${message}`, { cause }));
  }

  /** Disposes the isolate; every request still in it fails (the pool boots a fresh one). */
  function recycle(why: string): void {
    if (!isolate.isDisposed) isolate.dispose();
    guard.forget(watchId);
    // While it boots (an entry of the top level's slot may end here) there is no host to forget yet.
    if (booted) deps.hosts.delete(self);
    for (const state of [...requests.values()]) {
      state.fail(new AppError("function_failed", `The function's isolate was recycled: ${why}`));
    }
  }

  /** Guest→host: every message is checked before anything acts on it. */
  function onGuestOp(rawOp: unknown, slot: unknown, ...raw: unknown[]): unknown {
    const { op, args } = parseGuestOp(rawOp, raw, knownPairs);
    if (op === "random") return new Uint8Array(randomBytes(args[0] as number));
    if (op === "now") return performance.now() - originMs;
    if (op === "module") return platform.modules[args[0] as GuestModule];
    if (op === "file.read" || op === "file.stat" || op === "file.list") return fileOp(op, args[0] as string);
    const state = typeof slot === "number" ? requests.get(slot) : undefined;
    if (!state || state.ended) {
      if (SLOTLESS_OPS.has(op)) return undefined;
      throw new Error("This request has already ended");
    }
    switch (op) {
      case "log":
        state.io.log(args[0] as never, args[1] as string);
        return undefined;
      case "snapshot":
        return state.io.snapshot();
      case "context":
        return contextText(contextTexts, state.context);
      case "timer.set": {
        const timers = (state.timers ??= new Map());
        if (timers.size >= MAX_TIMERS_PER_REQUEST) throw new Error("Too many timers");
        const [id, ms, repeat] = args as [number, number, boolean];
        const fire = () => {
          if (!repeat) timers.delete(id);
          enter(state, "timer", id);
        };
        timers.set(id, repeat ? setInterval(fire, ms) : setTimeout(fire, ms));
        return undefined;
      }
      case "timer.clear": {
        const id = args[0] as number;
        clearTimeout(state.timers?.get(id));
        state.timers?.delete(id);
        return undefined;
      }
      case "respond":
        state.respond(...(args as RespondArgs));
        return undefined;
      case "chunk":
        state.chunk(args[0] as Uint8Array | null);
        return undefined;
      case "body.error":
        state.bodyError(args[0] as string);
        return undefined;
      case "fail":
        state.io.log("error", `Uncaught ${args[0] as string}`);
        state.fail(new AppError("function_failed", `The function threw: ${firstLine(args[0] as string)}`));
        return undefined;
      case "idle":
        state.idle();
        return undefined;
      case "call":
        startCall(state, ...(args as [number, CallKind, unknown]));
        return undefined;
      case "ws.accept":
      case "ws.connect":
      case "ws.send":
      case "ws.close":
        sockets.op(state, op, args);
        return undefined;
    }
  }

  /** A file op answers at once from the files held here: bytes, `[isDirectory, size, mtime]`, entries, or an errno. */
  function fileOp(op: "file.read" | "file.stat" | "file.list", path: string): unknown {
    const files = options.files;
    if (!files) return path === "/" ? (op === "file.read" ? 21 : op === "file.stat" ? [true, 0, 0] : []) : 2;
    return op === "file.read" ? files.read(path) : op === "file.stat" ? files.stat(path) : files.list(path);
  }

  /** An asynchronous host operation; its outcome is a later entry ("settle") of the same request. */
  function startCall(state: RequestState, id: number, kind: CallKind, payload: unknown): void {
    const work = (async () => {
      if (kind === "crypto") return crypto.run(payload);
      if (kind === "zlib") return compression.run(state.slot, payload);
      if (kind === "fetch") {
        const { via, ...request } = FetchCallSchema.parse(payload);
        return state.io.fetch(request, via);
      }
      const { op, args } = OpCallSchema.parse(payload);
      return state.io.call(op, args);
    })();
    // A call of the top level settles once its run is over: an entry while the run (off this thread)
    // still holds the isolate would wait for it here, and hold up the whole service.
    const outcome = state === bootState ? afterTopLevelRan(work) : work;
    const settled = outcome.then(
      (value) => enter(state, "settle", id, true, value),
      (error: unknown) => {
        // A limit (a decompression bomb) fails the request; a bad input errors the guest's stream.
        if (kind === "zlib" && isAppError(error)) return state.fail(error);
        enter(state, "settle", id, false, {
          name: callErrorName(kind, error),
          message: error instanceof Error ? error.message : String(error),
        });
      },
    );
    if (state === bootState) {
      bootCalls++;
      const done = () => {
        bootCalls--;
        bootCallSettled?.();
      };
      // The entry itself may throw (its isolate stopped while booting): the boot still hears of it.
      settled.then(done, done);
    }
  }

  /** What every request's state reports to: one object for the isolate, not two closures per request. */
  const owner: RequestOwner = {
    enter,
    ended(state, guestDone) {
      const { slot } = state;
      compression.release(slot);
      if (!isolate.isDisposed && !guestDone) {
        if (entering) queueMicrotask(() => endInGuest(slot));
        else endInGuest(slot);
      }
      requests.delete(slot);
    },
  };

  /**
   * Slot 0 is the top level's while it runs: the guest sends it the host calls a top level may await
   * that need no request (`crypto.subtle`: guest/bridge.ts, `BOOT_CALLS`). Their outcomes are its
   * entries, bounded by the function's CPU limit as a request's are, and the boot waits for them.
   */
  const bootLogs: Array<[LogLevel, string]> = [];
  let bootLogBytes = 0;
  const bootIO: InvocationIO = {
    ...BOOT_IO,
    log(level, message) {
      bootLogBytes += message.length;
      if (bootLogs.length < MAX_BOOT_LOG_LINES && bootLogBytes <= MAX_BOOT_LOG_BYTES) {
        bootLogs.push([level, message]);
      }
    },
  };
  const bootState = createRequestState({ slot: BOOT_SLOT, io: bootIO, limits, owner, context: {} });
  bootState.response.catch(() => undefined); // A failure is read where the boot waits, or not at all.
  requests.set(BOOT_SLOT, bootState);
  let bootCalls = 0;
  let bootCallSettled: (() => void) | undefined;
  let booted = false;
  let topLevelRanNow!: () => void;
  const topLevelRan = new Promise<void>((resolve) => (topLevelRanNow = resolve));
  /** `work`'s outcome once the top level's run is over; its rejection is handled at once (Node wants it so). */
  const afterTopLevelRan = <T>(work: Promise<T>): Promise<T> => {
    const held = work.then(
      (value) => () => value,
      (error: unknown) => () => {
        throw error;
      },
    );
    return topLevelRan.then(() => held).then((outcome) => outcome());
  };

  try {
    const context = spare?.context ?? isolate.createContextSync();
    const boot = context.global.getSync("__tessera_boot", { reference: true }) as IsolatedVM.Reference<
      (...args: unknown[]) => unknown
    >;
    dispatch = boot.applySync(
      undefined,
      [new ivm.Callback(onGuestOp), JSON.stringify(options.env ?? {}), Date.now()],
      {
        result: { reference: true },
      },
    ) as typeof dispatch;
    boot.release();
    producedCachedData = await runTopLevel(isolate, context, program, limits).finally(topLevelRanNow);
    // Each settled call is an entry that may start another: the top level is done when none is left.
    while (bootCalls > 0) {
      await Promise.race([new Promise<void>((resolve) => (bootCallSettled = resolve)), bootState.response]);
    }
    const missing = dispatch.applySync(undefined, ["boot", BOOT_SLOT], { timeout: 1_000 }) as string;
    if (missing) throw new Error(missing);
    bootState.respond(204, "", [], null, true);
    watchId = guard.register(isolate);
  } catch (cause) {
    if (!isolate.isDisposed) isolate.dispose();
    bootState.fail(new AppError("function_failed", "The function failed to start"));
    throw new AppError("function_failed", `The function failed to start: ${guestMessage(cause)}`, { cause });
  } finally {
    if (options.useSpare !== false) spares.refill(platform.snapshot);
  }

  const self: IsolateHost = disposable({
    get healthy() {
      return !isolate.isDisposed;
    },
    get inFlight() {
      return requests.size;
    },
    get compressionStreams() {
      return compression.size;
    },
    producedCachedData,
    async invoke(request, io) {
      if (isolate.isDisposed) throw new AppError("function_failed", "The function's isolate is gone");
      const slot = nextSlot++;
      const { method, url, headers, body, context, requestId } = request;
      // What the top level logged goes to the log of the request the isolate started for (Deno prints it).
      if (bootLogs.length > 0) for (const [level, message] of bootLogs.splice(0)) io.log(level, message);
      const state = createRequestState({ slot, io, limits, owner, context });
      requests.set(slot, state);
      // The guest knows a context by the id it had here: its text crosses with the first request
      // that carries it (the guest asks with op "context" if it has forgotten one).
      let contextId = contextIds.get(context);
      let contextJson: string | undefined;
      if (contextId === undefined) {
        contextIds.set(context, (contextId = nextContextId++));
        contextJson = contextText(contextTexts, context);
      }
      enter(state, "request", requestHead(method, url, requestId, contextId, headers), body, contextJson);
      return state.response;
    },
    // The files held for it count too: the pool's memory budget is what its warm isolates keep.
    heapUsedBytes: () =>
      isolate.isDisposed ? 0 : isolate.getHeapStatisticsSync().used_heap_size + (options.files?.bytes ?? 0),
    dispose: async () => recycle("it was disposed"),
  });
  deps.hosts.add(self);
  booted = true;
  return self;

  function endInGuest(slot: number): void {
    if (isolate.isDisposed) return;
    try {
      dispatch.applySync(undefined, ["end", slot], { timeout: 100 });
    } catch {
      // Forgetting a request runs only platform code; if even that fails, the isolate goes.
      recycle("the platform failed");
    }
  }
}

/**
 * Compiles the program (with its code cache when this server made one, else making one) and runs
 * its top level off the Node thread (async run), so a boot that loops cannot stall the service.
 * Returns the code cache it produced, if it produced one.
 */
async function runTopLevel(
  isolate: IsolatedVM.Isolate,
  context: IsolatedVM.Context,
  program: GuestProgram,
  limits: SandboxLimits,
): Promise<Uint8Array | undefined> {
  const cachedData = program.cachedData ? new ivm.ExternalCopy(program.cachedData.slice().buffer) : undefined;
  const script = isolate.compileScriptSync(program.code, {
    filename: program.filename,
    ...(cachedData ? { cachedData } : { produceCachedData: true }),
  }) as IsolatedVM.Script & IsolatedVM.CachedDataResult;
  await script.run(context, {
    timeout: Math.min(limits.wallTimeLimitMs, Math.max(1_000, limits.cpuTimeLimitMs)),
  });
  return script.cachedData && new Uint8Array(script.cachedData.copy());
}

/** The top level's slot: a request's are 1 and up. */
const BOOT_SLOT = 0;

/** What the top level's slot may do: crypto (guest/bridge.ts), which needs no io, and log (kept). */
const BOOT_IO: Omit<InvocationIO, "log"> = {
  fetch: () => Promise.reject(new TypeError("fetch() is only possible while handling a request")),
  call: () => Promise.reject(new Error("Only possible while handling a request")),
  snapshot: () => null,
};

/** The top level's log kept for the first request, in lines and characters; the rest is dropped. */
const MAX_BOOT_LOG_LINES = 100;
const MAX_BOOT_LOG_BYTES = 65_536;

type CallKind = "fetch" | "call" | "crypto" | "zlib";

/** A failed call reaches the guest as a TypeError for fetch and compression (their specs say so), WebCrypto's by name. */
function callErrorName(kind: CallKind, error: unknown): string {
  if (kind === "fetch" || kind === "zlib") return "TypeError";
  return kind === "crypto" ? cryptoErrorName(error) : "Error";
}

/**
 * A request's "head", the one text it enters the guest with (guest/serve.ts `startRequest`):
 * the JSON of `[method, url, requestId, contextId]`, a newline, then the JSON of its header
 * pairs, names lowercased (the guest parses those only if the function reads them).
 *
 * Why one text: isolated-vm copies each argument of an entry on its own, and one string
 * crosses ~2 µs faster than the five it replaces (bench/README.md, function-invoke). JSON
 * escapes newlines, so the first one ends the JSON whatever the method or the URL hold.
 */
function requestHead(
  method: string,
  url: string,
  requestId: string,
  contextId: number,
  headers: Array<[string, string]>,
): string {
  const pairs = JSON.stringify(headers.map(([name, value]) => [name.toLowerCase(), value]));
  return `${JSON.stringify([method, url, requestId, contextId])}\n${pairs}`;
}

/** A context object's JSON, made once per object (`IsolateHostDeps.contextTexts`). */
function contextText(contextTexts: WeakMap<object, string>, context: object): string {
  let text = contextTexts.get(context);
  if (text === undefined) {
    text = JSON.stringify(context);
    contextTexts.set(context, text);
  }
  return text;
}

function cpuLimitError(limits: SandboxLimits, cause?: unknown): AppError {
  return new AppError(
    "function_cpu_limit",
    `The function used more than ${limits.cpuTimeLimitMs} ms of CPU time`,
    {
      cause,
    },
  );
}

/** WebCrypto reports failures by DOMException name (NotSupportedError, DataError, OperationError…). */
function cryptoErrorName(error: unknown): string {
  const name = (error as { name?: unknown })?.name;
  if (typeof name === "string" && /^[A-Za-z]+Error$/.test(name))
    return name === "Error" ? "OperationError" : name;
  return "OperationError";
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.slice(0, 500);
}

/** The guest's error message, without host stack frames. */
function guestMessage(cause: unknown): string {
  if (isAppError(cause)) return cause.message;
  const message = cause instanceof Error ? cause.message : String(cause);
  return firstLine(message);
}

function stackOf(cause: unknown): string {
  if (cause instanceof Error) {
    const lines = (cause.stack ?? cause.message).split("\n");
    // Frames of the guest only: isolated-vm appends the host's after "<isolated-vm boundary>".
    const boundary = lines.findIndex((line) => line.includes("<isolated-vm boundary>"));
    return (boundary >= 0 ? lines.slice(0, boundary) : lines).join("\n");
  }
  return String(cause);
}
