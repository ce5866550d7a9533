import { AppError, disposable, type Clock, type Disposable } from "../core/index.ts";
import type { FunctionFileSet } from "./function-files.ts";
import type { IsolateHost } from "./isolate.ts";
import type { GuestProgram } from "./program.ts";
import type { InvocationIO, InvocationRequest, InvocationResponse } from "./invocation.ts";
import type { SandboxLimits } from "./limits.ts";

/** Names one deployed version of one organization's function: the unit of isolation. */
export interface FunctionKey {
  orgId: string;
  functionId: string;
  version: number;
  /**
   * Anything else the isolate was booted with that can change without a new version
   * (secrets): a new revision boots a new isolate, the old one idles out.
   */
  revision?: string;
}

/** What the pool needs to boot a function (loaded on a miss). */
export interface LoadedFunction {
  program: GuestProgram;
  limits: SandboxLimits;
  /** Secrets (`Deno.env`, the `env` argument); fixed for the isolate's life: retire it when they change. */
  env: Record<string, string>;
  /** The files it was deployed with, for `Deno.readFile` (none: an empty root). */
  files?: FunctionFileSet;
}

export interface IsolatePoolOptions {
  /** Warm isolates kept at most; the least recently used idle one goes first. */
  maxIsolates: number;
  /** Total V8 heap of warm isolates, MB, past which idle ones are retired (LRU). */
  memoryBudgetMb: number;
  /** An isolate idle this long is retired. */
  idleTimeoutMs: number;
  /** Called with the V8 code cache a first boot produced, to store with the deployment. */
  onCachedData?: (key: FunctionKey, cachedData: Uint8Array) => void;
  /** Idle time is measured on it (when the pool sweeps, never per request). */
  clock: Clock;
}

export interface IsolatePool extends Disposable {
  /**
   * Sends one request to the function's isolate, booting it on first use (or after
   * a fault). Concurrent requests to one function interleave in its isolate; two
   * organizations never share one.
   */
  invoke(
    key: FunctionKey,
    load: () => Promise<LoadedFunction>,
    request: InvocationRequest,
    io: InvocationIO,
  ): Promise<InvocationResponse>;
  /** Retires the isolates of a function (all versions), e.g. after a delete. */
  retire(orgId: string, functionId: string): void;
  /**
   * Retires isolates idle past `idleTimeoutMs`, then idle ones past the count or heap
   * budget, least recently used first. The pool does it on its own every
   * `idleTimeoutMs / 2` (1–10 s); tests call it after stepping the clock.
   */
  sweep(): Promise<void>;
  /** Warm (booted) isolates and their V8 heap. */
  stats(): Promise<PoolStats>;
}

export interface PoolStats {
  isolates: number;
  heapUsedBytes: number;
}

interface Entry {
  key: FunctionKey;
  host: Promise<IsolateHost>;
  /** Set once booted. */
  booted: IsolateHost | undefined;
  /** The pool's use count at this entry's latest use: orders entries by recency without reading a clock. */
  lastUse: number;
  /** `lastUse` as the latest sweep saw it, and the clock's time then (ms): idle since. */
  seenUse: number;
  activeAtMs: number;
}

/**
 * A sandbox's warm isolates, keyed by organization, function and version (`createSandbox`
 * makes it; `boot` is the sandbox's, so isolates share its platform, spares and watchdog).
 * A host whose isolate died (heap, CPU limit) is dropped, so the next request gets a
 * fresh one; a boot that failed is not cached either.
 *
 * A request costs no clock read: it stamps its entry with a use count. Each sweep reads
 * the clock once and notes, for every entry used since the previous sweep, that it was
 * active then; an entry is idle from the first sweep that saw it unused, so it is retired
 * at most one sweep interval later than its last use alone would say.
 */
export function createIsolatePool(
  options: IsolatePoolOptions,
  boot: (loaded: LoadedFunction) => Promise<IsolateHost>,
): IsolatePool {
  const { clock } = options;
  const entries = new Map<string, Entry>();
  let uses = 0;
  let disposed = false;
  // The heap budget is checked here, not per request: reading every isolate's heap is O(n).
  const timer = setInterval(() => void sweep(), Math.max(1000, Math.min(options.idleTimeoutMs / 2, 10_000)));
  timer.unref();

  const idOf = (key: FunctionKey) =>
    `${key.orgId}\u0000${key.functionId}\u0000${key.version}\u0000${key.revision ?? ""}`;

  const hostFor = (key: FunctionKey, load: () => Promise<LoadedFunction>): Entry => {
    const id = idOf(key);
    const existing = entries.get(id);
    if (existing) return existing;
    const host = load().then(async (loaded) => {
      const booted = await boot(loaded);
      if (booted.producedCachedData) options.onCachedData?.(key, booted.producedCachedData);
      return booted;
    });
    const entry: Entry = {
      key,
      host,
      booted: undefined,
      lastUse: 0,
      seenUse: 0,
      activeAtMs: clock.nowMs(),
    };
    entries.set(id, entry);
    host.then(
      (booted) => (entry.booted = booted),
      // A failed boot is not kept: the next request tries again.
      () => {
        if (entries.get(id) === entry) entries.delete(id);
      },
    );
    return entry;
  };

  const drop = (entry: Entry) => {
    const id = idOf(entry.key);
    if (entries.get(id) === entry) entries.delete(id);
    void entry.host.then((host) => host.dispose()).catch(() => {});
  };

  async function settled(): Promise<Array<{ entry: Entry; host: IsolateHost }>> {
    const all = await Promise.all(
      [...entries.values()].map(async (entry) => ({ entry, host: await entry.host.catch(() => undefined) })),
    );
    return all.filter((x): x is { entry: Entry; host: IsolateHost } => x.host !== undefined);
  }

  async function sweep(): Promise<void> {
    await retireIdle();
    await enforceBudget();
  }

  async function retireIdle(): Promise<void> {
    const now = clock.nowMs();
    for (const { entry, host } of await settled()) {
      // In flight: requests not ended, an open WebSocket's included (its request lasts as long as it).
      if (entry.lastUse !== entry.seenUse || host.inFlight > 0) {
        entry.seenUse = entry.lastUse;
        entry.activeAtMs = now;
      } else if (now - entry.activeAtMs > options.idleTimeoutMs) drop(entry);
    }
  }

  /** Retires least recently used idle isolates while over the count or the heap budget. */
  async function enforceBudget(): Promise<void> {
    const warm = (await settled()).sort((a, b) => a.entry.lastUse - b.entry.lastUse);
    let heap = warm.reduce((sum, { host }) => sum + host.heapUsedBytes(), 0);
    let count = warm.length;
    const budgetBytes = options.memoryBudgetMb * 1024 * 1024;
    for (const { entry, host } of warm) {
      if (count <= options.maxIsolates && heap <= budgetBytes) break;
      if (host.inFlight > 0) continue;
      heap -= host.heapUsedBytes();
      count--;
      drop(entry);
    }
  }

  return disposable({
    async invoke(key, load, request, io) {
      if (disposed) throw new AppError("disposed", "the isolate pool is disposed");
      const entry = hostFor(key, load);
      entry.lastUse = ++uses;
      const host = await entry.host;
      try {
        return await host.invoke(request, io);
      } finally {
        entry.lastUse = ++uses;
        if (!host.healthy) drop(entry);
        else if (entries.size > options.maxIsolates) void enforceBudget();
      }
    },
    retire(orgId, functionId) {
      for (const entry of [...entries.values()]) {
        if (entry.key.orgId === orgId && entry.key.functionId === functionId) drop(entry);
      }
    },
    sweep,
    stats() {
      let isolates = 0;
      let heapUsedBytes = 0;
      // Booted ones only: a scrape never waits for a boot.
      for (const { booted } of entries.values()) {
        if (!booted) continue;
        isolates++;
        heapUsedBytes += booted.heapUsedBytes();
      }
      return Promise.resolve({ isolates, heapUsedBytes });
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      clearInterval(timer);
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map((entry) => entry.host.then((host) => host.dispose()).catch(() => {})));
    },
  });
}
