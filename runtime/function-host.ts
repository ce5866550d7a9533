import { disposable, type Clock, type Config, type Disposable, type Logger } from "../core/index.ts";
import { createSandbox, type Sandbox } from "../sandbox/index.ts";
import type { Store } from "../store/index.ts";
import { createCachedDataSaver } from "./invoke.ts";
import { createOutboundFetch, type OutboundFetch } from "./outbound.ts";

/**
 * What running functions needs for the life of the process: the sandbox (warm isolates,
 * spares, watchdog) and outbound connections. The composition root makes one and
 * registers its `dispose()`.
 */
export interface FunctionHost extends Disposable {
  /** The sandbox, configured from `config.functions`; the invoker's `pool`. */
  isolates: Sandbox;
  outbound: OutboundFetch;
}

export function createFunctionHost(options: {
  config: Config;
  store: Store;
  log: Logger;
  /** Idle time of warm isolates is measured on it (default: the system clock). */
  clock?: Clock;
}): FunctionHost {
  const { config, store, log } = options;
  const isolates = createSandbox({
    maxIsolates: config.functions.maxIsolates,
    memoryBudgetMb: config.functions.memoryBudgetMb,
    idleTimeoutMs: config.functions.idleTimeoutMs,
    onCachedData: createCachedDataSaver(store, log),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const outbound = createOutboundFetch({
    allowPrivateTargets: config.allowPrivateTargets,
    maxResponseBytes: config.functions.maxResponseBytes,
    maxSocketMessageBytes: config.functions.wsMaxMessageBytes,
    userAgent: "Tessera-Functions/1",
  });
  return disposable({
    isolates,
    outbound,
    async dispose() {
      await outbound.dispose();
      await isolates.dispose();
    },
  });
}
