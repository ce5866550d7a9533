import type { Config, Disposable, Logger } from "../core/index.ts";
import { createIsolatePool } from "../sandbox/index.ts";
import type { Store } from "../store/index.ts";
import { createCachedDataSaver } from "./invoke.ts";
import { createOutboundFetch, type OutboundFetch } from "./outbound.ts";
import type { IsolatePool } from "../sandbox/index.ts";

/** What running functions needs for the life of the process: the warm isolates and outbound connections. */
export interface FunctionHost extends Disposable {
  isolates: IsolatePool;
  outbound: OutboundFetch;
}

export function createFunctionHost(options: { config: Config; store: Store; log: Logger }): FunctionHost {
  const { config, store, log } = options;
  const isolates = createIsolatePool({
    maxIsolates: config.functions.maxIsolates,
    memoryBudgetMb: config.functions.memoryBudgetMb,
    idleTimeoutMs: config.functions.idleTimeoutMs,
    onCachedData: createCachedDataSaver(store, log),
  });
  const outbound = createOutboundFetch({
    allowPrivateTargets: config.allowPrivateTargets,
    maxResponseBytes: config.functions.maxResponseBytes,
    userAgent: "Tessera-Functions/1",
  });
  return {
    isolates,
    outbound,
    async dispose() {
      outbound.dispose();
      await isolates.dispose();
    },
  };
}
