import { AppError, disposable, systemClock, type Clock } from "../core/index.ts";
import {
  createIsolateHost,
  type IsolateHost,
  type IsolateHostDeps,
  type IsolateHostOptions,
} from "./isolate.ts";
import { buildGuestPlatform, type GuestPlatform } from "./web-platform.ts";
import { createIsolatePool, type FunctionKey, type IsolatePool, type PoolStats } from "./pool.ts";
import { createKnownHeaderPairs } from "./protocol.ts";
import { createSpareIsolates } from "./spares.ts";
import { createWatchdog, type WatchdogStats } from "./watchdog.ts";

export interface SandboxOptions {
  /** Warm isolates kept at most; the least recently used idle one goes first. */
  maxIsolates: number;
  /** Total V8 heap of warm isolates, MB, past which idle ones are retired (LRU). */
  memoryBudgetMb: number;
  /** An isolate idle this long is retired. */
  idleTimeoutMs: number;
  /** Called with the V8 code cache a first boot produced, to store with the deployment. */
  onCachedData?: (key: FunctionKey, cachedData: Uint8Array) => void;
  /** Idle time of warm isolates is measured on it (default: the system clock). */
  clock?: Clock;
}

export interface SandboxStats extends PoolStats {
  /** Blank isolates made ahead of time, ready for cold starts. */
  spareIsolates: number;
  /** Entries into guests since the sandbox was made: watched, left to isolated-vm's timeout, stopped. */
  entries: WatchdogStats;
}

/**
 * The isolate boundary of one process (or of one test): it owns every isolate it boots,
 * the blank isolates made ahead of time, the watchdog over guest entries, the guest
 * platform's snapshot and the caches the hosts share. Nothing of it is module state, so
 * two sandboxes share nothing and `dispose()` frees all of it.
 *
 * It is the isolate pool (`invoke`, `retire`, `sweep`, `stats`) the runtime invokes
 * functions through. Once disposed, `invoke` and `createHost` throw `AppError("disposed")`;
 * `retire` and `sweep` do nothing; `stats` reports what is left (nothing).
 *
 * The V8 flags its isolates want are the process's: `setProcessV8Flags()` at process start.
 *
 * @example
 *   const sandbox = createSandbox({ maxIsolates: 1000, memoryBudgetMb: 3072, idleTimeoutMs: 300_000, clock });
 *   const response = await sandbox.invoke({ orgId, functionId, version }, load, request, io);
 *   await sandbox.dispose();
 */
export interface Sandbox extends IsolatePool {
  /**
   * Boots one isolate for a program outside the pool (tests, benchmarks): it shares the
   * sandbox's platform, spares and watchdog, and goes with the sandbox unless disposed first.
   */
  createHost(options: IsolateHostOptions): Promise<IsolateHost>;
  stats(): Promise<SandboxStats>;
  /** Disposes every isolate (pooled, standalone, spare) and the watchdog; idempotent. */
  dispose(): Promise<void>;
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const clock = options.clock ?? systemClock;
  let platform: Promise<GuestPlatform> | undefined;
  let disposed = false;
  const deps: IsolateHostDeps = {
    platform() {
      platform ??= buildGuestPlatform().catch((error: unknown) => {
        platform = undefined;
        throw error;
      });
      return platform;
    },
    watchdog: createWatchdog(),
    spares: createSpareIsolates(),
    contextTexts: new WeakMap(),
    knownPairs: createKnownHeaderPairs(),
    hosts: new Set(),
  };
  const pool = createIsolatePool({ ...options, clock }, (loaded) => createIsolateHost(loaded, deps));
  const refuse = () => new AppError("disposed", "the sandbox is disposed");

  return disposable({
    // The pool's own `invoke` and `retire`, not wrappers: an invocation costs what it did before.
    ...pool,
    sweep: () => (disposed ? Promise.resolve() : pool.sweep()),
    async createHost(hostOptions) {
      if (disposed) throw refuse();
      let host: IsolateHost;
      try {
        host = await createIsolateHost(hostOptions, deps);
      } catch (error) {
        throw disposed ? refuse() : error;
      }
      if (disposed) {
        await host.dispose();
        throw refuse();
      }
      return host;
    },
    async stats() {
      return {
        ...(await pool.stats()),
        spareIsolates: deps.spares.ready,
        entries: deps.watchdog.stats(),
      };
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await pool.dispose();
      await Promise.all([...deps.hosts].map((host) => host.dispose()));
      await deps.spares.dispose();
      deps.knownPairs.clear();
      await deps.watchdog.dispose();
      // A platform still building is released once built; nothing will boot from it.
      void platform?.then((built) => built.snapshot.release()).catch(() => {});
      platform = undefined;
    },
  });
}
