import type { Clock, Config, Logger, SecretBox } from "../core/index.ts";
import type { AnyResourceService, KeyPrincipal } from "../engines/index.ts";
import type { OutboundFetch } from "../runtime/index.ts";
import type { IsolatePool } from "../sandbox/index.ts";
import type { Store } from "../store/index.ts";
import type { KeyCache } from "./auth/key-cache.ts";
import type { Metrics } from "./metrics.ts";
import type { RateLimiter } from "./rate-limit/index.ts";

/** What the API is built from; main.ts owns each part and its dispose(). */
export interface ApiDeps {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  keys: KeyCache;
  rateLimiter: RateLimiter;
  metrics: Metrics;
  resources: Map<string, AnyResourceService>;
  /** Seals and opens secrets at rest (webhook signing secrets), keyed by TESSERA_SECRET. */
  secretBox: SecretBox;
  /** Warm isolates of deployed functions (owned by main.ts: disposed at shutdown). */
  isolates: IsolatePool;
  /** Functions' outbound `fetch`, with the private-address guard. */
  outbound: OutboundFetch;
  /** Token that operator commands present (stored in the data dir). */
  adminToken: string | undefined;
  /** Whether migrations are applied and the store answers. */
  ready(): Promise<boolean>;
}

/** Hono's per-request variables. */
export interface AppEnv {
  Variables: {
    requestId: string;
    principal: KeyPrincipal;
    /** Raw JSON body text, read once under the size limit. */
    bodyText: string;
    body: unknown;
  };
}
