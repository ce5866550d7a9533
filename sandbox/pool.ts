import { AppError, type Disposable } from "../core/index.ts";
import {
  createIsolateHost,
  disposeSpareIsolates,
  type GuestProgram,
  type IsolateHost,
} from "./isolate-host.ts";
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
  stats(): Promise<{ isolates: number; heapUsedBytes: number }>;
}

interface Entry {
  key: FunctionKey;
  host: Promise<IsolateHost>;
  lastUsedMs: number;
}

/**
 * The warm isolates of this process, keyed by organization, function and version.
 * A host whose isolate died (heap, CPU limit) is dropped, so the next request gets
 * a fresh one; a boot that failed is not cached either.
 */
export function createIsolatePool(options: IsolatePoolOptions): IsolatePool {
  const entries = new Map<string, Entry>();
  let disposed = false;
  // The heap budget is checked here, not per request: reading every isolate's heap is O(n).
  const sweep = setInterval(
    () => void retireIdle().then(enforceBudget),
    Math.max(1000, Math.min(options.idleTimeoutMs / 2, 10_000)),
  );
  sweep.unref();

  const idOf = (key: FunctionKey) =>
    `${key.orgId}\u0000${key.functionId}\u0000${key.version}\u0000${key.revision ?? ""}`;

  const hostFor = (key: FunctionKey, load: () => Promise<LoadedFunction>): Entry => {
    const id = idOf(key);
    const existing = entries.get(id);
    if (existing) return existing;
    const host = load().then(async ({ program, limits, env }) => {
      const booted = await createIsolateHost({ program, limits, env });
      if (booted.producedCachedData) options.onCachedData?.(key, booted.producedCachedData);
      return booted;
    });
    const entry: Entry = { key, host, lastUsedMs: Date.now() };
    entries.set(id, entry);
    // A failed boot is not kept: the next request tries again.
    host.catch(() => {
      if (entries.get(id) === entry) entries.delete(id);
    });
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

  async function retireIdle(): Promise<void> {
    const now = Date.now();
    for (const { entry, host } of await settled()) {
      if (host.inFlight === 0 && now - entry.lastUsedMs > options.idleTimeoutMs) drop(entry);
    }
  }

  /** Retires least recently used idle isolates while over the count or the heap budget. */
  async function enforceBudget(): Promise<void> {
    const warm = (await settled()).sort((a, b) => a.entry.lastUsedMs - b.entry.lastUsedMs);
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

  return {
    async invoke(key, load, request, io) {
      if (disposed) throw new AppError("disposed", "the isolate pool is disposed");
      const entry = hostFor(key, load);
      entry.lastUsedMs = Date.now();
      const host = await entry.host;
      try {
        return await host.invoke(request, io);
      } finally {
        entry.lastUsedMs = Date.now();
        if (!host.healthy) drop(entry);
        else if (entries.size > options.maxIsolates) void enforceBudget();
      }
    },
    retire(orgId, functionId) {
      for (const entry of [...entries.values()]) {
        if (entry.key.orgId === orgId && entry.key.functionId === functionId) drop(entry);
      }
    },
    async stats() {
      const warm = await settled();
      return {
        isolates: warm.length,
        heapUsedBytes: warm.reduce((sum, { host }) => sum + host.heapUsedBytes(), 0),
      };
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      clearInterval(sweep);
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map((entry) => entry.host.then((host) => host.dispose()).catch(() => {})));
      disposeSpareIsolates();
    },
  };
}
