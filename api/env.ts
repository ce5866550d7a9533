import type { Context, Hono } from "hono";
import type { Clock, Config, Logger, SecretBox } from "../core/index.ts";
import type { AnyResourceService, EngineStateService, EventType, KeyPrincipal } from "../engines/index.ts";
import type { SyncService } from "../sync/index.ts";
import type { FunctionInvoker, FunctionService } from "../runtime/index.ts";
import type { BackupSeal, Store } from "../store/index.ts";
import type { WebhookDeliveryService, WebhookEndpointService } from "../webhooks/index.ts";
import type { KeyCache } from "./auth/key-cache.ts";
import type { Metrics } from "./metrics.ts";
import type { RateLimiter } from "./rate-limit/index.ts";

/**
 * What the API is built from: services, each built once by the composition root
 * (`createServices` in services.ts), which owns them and their dispose(). The API adds
 * only HTTP: routes, middleware, the invocation path.
 */
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
  /** Seals backup manifests and names the secret they need (store/backup.ts), from TESSERA_SECRET. */
  backupSeal: BackupSeal;
  /** Signs the pre-session CSRF tokens of the sign-in and setup forms; from TESSERA_SECRET, the same on every node. */
  csrfKey: Buffer;
  /** Every event type, with its JSON Schema (`GET /v1/event_types`). */
  catalog: readonly EventType[];
  engineState: EngineStateService;
  webhookEndpoints: WebhookEndpointService;
  webhookDeliveries: WebhookDeliveryService;
  /** Deploy, versions, secrets, logs and runs of functions. */
  functions: FunctionService;
  /** Runs the organization's functions. */
  invoker: FunctionInvoker;
  /** SYNC, the agent: chat, approvals, the audit record. */
  sync: SyncService;
  /** Token that operator commands present (stored in the data dir). */
  adminToken: string | undefined;
  /** Whether migrations are applied and the store answers. */
  ready(): Promise<boolean>;
}

/**
 * The browser's face (dashboard/, a floor above api/), built by the composition root and handed
 * to `createApi`, so api/ never imports it: the OAuth sign-in and consent pages and the
 * dashboard, and how a dashboard session calls `/v1` from its own pages.
 */
export interface BrowserFace {
  /** Mounted at `/` ahead of `/v1`: the OAuth pages first, then the dashboard. */
  routes: Hono<AppEnv>;
  /** The caller a dashboard session cookie names, or undefined when there is none (dashboard/session.ts). */
  sessionPrincipal(c: Context<AppEnv>): Promise<KeyPrincipal | undefined>;
}

/** Hono's per-request variables. */
export interface AppEnv {
  Variables: {
    requestId: string;
    principal: KeyPrincipal;
    /** The X-RateLimit-* headers every response to the caller carries (set by authentication). */
    rateLimit: Record<string, string>;
    /** Raw JSON body text, read once under the size limit. */
    bodyText: string;
    body: unknown;
  };
}
