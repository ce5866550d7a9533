import type { Clock, Config, Logger, SecretBox } from "../core/index.ts";
import type {
  AnyResourceService,
  EngineStateService,
  EventType,
  KeyPrincipal,
  SyncService,
} from "../engines/index.ts";
import type { FunctionInvoker, FunctionService } from "../runtime/index.ts";
import type { Store } from "../store/index.ts";
import type { WebhookDeliveryService, WebhookEndpointService } from "../webhooks/index.ts";
import type { KeyCache } from "./auth/key-cache.ts";
import type { Metrics } from "./metrics.ts";
import type { OAuthServer } from "./oauth/server.ts";
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
  /** The OAuth 2.0 authorization server (api/oauth/): apps' codes, tokens and consent. */
  oauth: OAuthServer;
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
    /** The X-RateLimit-* headers every response to the caller carries (set by authentication). */
    rateLimit: Record<string, string>;
    /** Raw JSON body text, read once under the size limit. */
    bodyText: string;
    body: unknown;
  };
}
