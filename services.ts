import { hkdfSync } from "node:crypto";
import { Redis } from "ioredis";
import {
  createApi,
  createKeyCache,
  createMemoryRateLimiter,
  createMetrics,
  createSharedRateLimiter,
  type Api,
  type ApiDeps,
  type KeyCache,
  type MetricSample,
  type RateLimiter,
} from "./api/index.ts";
import { createBrowserFace } from "./dashboard/index.ts";
import { createOAuthServer, type OAuthServer } from "./dashboard/oauth/index.ts";
import {
  createSecretBox,
  disposable,
  Releasers,
  systemClock,
  type Clock,
  type Config,
  type Disposable,
  type Logger,
} from "./core/index.ts";
import {
  buildEventCatalog,
  createEngineStateService,
  createListCache,
  createResourceServices,
  latestSnapshot,
  PLATFORM_EVENT_TYPES,
  type CatalogSource,
  type ListCache,
} from "./engines/index.ts";
import { createSyncPlanner, createSyncService, SYNC_EVENT_TYPES } from "./sync/index.ts";
import {
  createFunctionHost,
  createFunctionInvoker,
  createSyncFunctionTools,
  createFunctionService,
  FUNCTION_EVENT_TYPES,
  RUN_QUEUE,
  type FunctionHost,
  type FunctionInvoker,
} from "./runtime/index.ts";
import type { SandboxStats } from "./sandbox/index.ts";
import {
  API_KEY_CHANGED,
  createBackupSeal,
  createInvalidations,
  FUNCTION_CHANGED,
  openStore,
  pendingMigrations,
  queueStats,
  QUEUE_COUNT_CAP,
  type Store,
} from "./store/index.ts";
import {
  createWebhookDeliveryService,
  createWebhookEndpointService,
  DELIVERY_QUEUE,
  WEBHOOK_EVENT_TYPES,
} from "./webhooks/index.ts";

/**
 * Every service of one Tessera process, built once (the composition root's first half;
 * main.ts decides what runs). The server, the CLI, tests and benchmarks all start here, so
 * a service is wired in one place: add a new one below and to `Services`.
 *
 * Nothing here listens or polls: the HTTP server, the scheduler and the workers are started
 * by `startServer` for the roles that run them. The REST app itself is built on first use
 * (`api()`), by the API role or by a function's first `ctx.platform.fetch` on a worker.
 */
export interface Services extends ApiDeps, Disposable {
  /** The OAuth 2.0 authorization server (dashboard/oauth/): apps' codes, tokens and consent. */
  oauth: OAuthServer;
  /** The warm isolates and functions' outbound connections. */
  functionHost: FunctionHost;
  /** The REST application of this process, built on first call. */
  api(): Api;
}

export interface ServicesOptions {
  config: Config;
  log: Logger;
  clock?: Clock;
  /** Use this store instead of opening one from the config (tests); the caller disposes it. */
  store?: Store;
  /** The key that seals secrets at rest (default: `config.secret`; embedded mode reads the data dir's). */
  secret?: string;
  /** Replaces the limiter the config chooses (tests, benchmarks). */
  rateLimiter?: RateLimiter;
  /** Replaces the key cache (benchmarks that measure what it costs). */
  keys?: KeyCache;
  /** The token operator commands present to `/admin/v1` (embedded mode: the data dir's). */
  adminToken?: string;
}

/** Builds every service of the process; `dispose()` tears them down in reverse order. */
export async function createServices(options: ServicesOptions): Promise<Services> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  const releasers = new Releasers();
  const logFailure = (part: string, error: unknown) => log.error("dispose failed", { part, error });
  try {
    const store = options.store ?? (await openStore(config));
    if (!options.store) releasers.add("store", () => store.dispose());
    const secret = options.secret ?? config.secret;
    if (!secret) throw new Error("createServices needs a secret for sealing secrets at rest");
    const secretBox = createSecretBox(secret);
    const redis = config.redisUrl ? connectRedis(config.redisUrl, log, releasers, "redis") : undefined;
    const rateLimiter =
      options.rateLimiter ??
      (redis ? createSharedRateLimiter(redis, clock, log) : createMemoryRateLimiter(clock));
    const keys = options.keys ?? createKeyCache({ db: store, clock, ttlMs: config.keyCacheTtlMs });
    const listCache = createListCache(config.listCacheBytes);
    const metrics = createMetrics();
    const resources = createResourceServices(store, clock, listCache);
    const catalog = buildEventCatalog(
      [...resources.values()].map((service) => service.definition as CatalogSource),
      [...PLATFORM_EVENT_TYPES, ...SYNC_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES, ...FUNCTION_EVENT_TYPES],
    );
    const eventTypes = catalog.map((entry) => entry.type);
    const engineState = createEngineStateService(store, clock, {
      maxEntries: config.engineStateMaxEntries,
    });
    const functionHost = createFunctionHost({ config, store, log, clock });
    // Disposed after everything that invokes functions (registered before them).
    releasers.add("function isolates", () => functionHost.dispose());
    let api: Api | undefined;
    const invoker = createFunctionInvoker({
      store,
      clock,
      box: secretBox,
      config: config.functions,
      log,
      pool: functionHost.isolates,
      outbound: functionHost.outbound,
      engineState,
      latestSnapshot: (orgId) => latestSnapshot(store, orgId),
      // ctx.platform.fetch: the REST API in-process, as the caller.
      platformFetch: (request) => Promise.resolve(services.api().app.fetch(request)),
    });
    await followInvalidations({ store, log, keys, invoker, releasers });
    const services: Services = disposable({
      config,
      log,
      clock,
      store,
      secretBox,
      backupSeal: createBackupSeal(secret),
      csrfKey: Buffer.from(hkdfSync("sha256", secret, "tessera", "dashboard csrf v1", 32)),
      keys,
      rateLimiter,
      metrics,
      resources,
      catalog,
      engineState,
      webhookEndpoints: createWebhookEndpointService({
        store,
        clock,
        box: secretBox,
        eventTypes,
        policy: { allowHttp: config.allowHttpTargets, allowPrivate: config.allowPrivateTargets },
      }),
      webhookDeliveries: createWebhookDeliveryService({ store, clock }),
      functionHost,
      invoker,
      functions: createFunctionService({
        eventTypes,
        store,
        clock,
        box: secretBox,
        config: config.functions,
        onChange: (orgId, functionId) => invoker.forget(orgId, functionId),
      }),
      sync: createSyncService({
        store,
        clock,
        services: resources,
        config: config.sync,
        planner: createSyncPlanner(config.sync),
        log,
        functionTools: createSyncFunctionTools({ store, invoker, origin: syncOrigin(config) }),
      }),
      oauth: createOAuthServer({ config, store, clock, secret }),
      adminToken: options.adminToken,
      ready: async () => (await pendingMigrations(store)).length === 0,
      api: () => (api ??= createApi(services, createBrowserFace(services))),
      dispose: () => releasers.dispose(logFailure),
    });
    registerGauges(services, listCache);
    return services;
  } catch (error) {
    // The error that stopped the build is the one thrown; a part that fails to close as well is logged.
    await releasers.dispose(logFailure).catch(() => undefined);
    throw error;
  }
}

/**
 * On PostgreSQL, a key or function changed through any node reaches this node's caches by
 * message at commit (store/invalidations.ts), so they need not wait out their TTLs. The
 * embedded store admits one process, whose own changes already drop its entries.
 */
async function followInvalidations(parts: {
  store: Store;
  log: Logger;
  keys: KeyCache;
  invoker: FunctionInvoker;
  releasers: Releasers;
}): Promise<void> {
  const { store, log, keys, invoker, releasers } = parts;
  if (store.kind !== "postgres") return;
  const bus = createInvalidations(store, log);
  releasers.add("invalidations", () => bus.dispose());
  await bus.subscribe(API_KEY_CHANGED, {
    onMessage: ({ id }) => keys.invalidate(id),
    onReset: () => keys.clear(),
  });
  await bus.subscribe(FUNCTION_CHANGED, {
    onMessage: ({ org_id }) => invoker.forgetLookups(org_id),
    onReset: () => invoker.forgetLookups(),
  });
}

function connectRedis(url: string, log: Logger, releasers: Releasers, name: string): Redis {
  // Rate limits must not wait on an unreachable Redis (createSharedRateLimiter counts locally then):
  // no queue while disconnected, and a bounded wait for a command on a connection that hangs.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 500 });
  redis.on("error", (error) => log.warn("redis error", { connection: name, error }));
  releasers.add(name, async () => void (await redis.quit().catch(() => redis.disconnect())));
  return redis;
}

/** What `/metrics` reports beside requests: the list cache, the queues, the isolates' watchdog. */
function registerGauges(services: Services, listCache: ListCache | undefined): void {
  const { metrics, store, clock } = services;
  if (listCache) {
    const { stats } = listCache;
    metrics.gauge(
      "tessera_list_cache_hits_total",
      "List pages served from the cache.",
      () => stats.hits,
      "counter",
    );
    metrics.gauge(
      "tessera_list_cache_misses_total",
      "List pages read from the store.",
      () => stats.misses,
      "counter",
    );
    metrics.gauge("tessera_list_cache_bytes", "Memory held by cached list pages.", () => stats.bytes);
  }
  metrics.collect(() => queueMetrics(store, clock.now()));
  metrics.collect(async () => sandboxMetrics(await services.functionHost.isolates.stats()));
}

/** The watchdog's counters, read from the sandbox at scrape time. */
function sandboxMetrics(stats: SandboxStats): MetricSample[] {
  return [
    {
      name: "tessera_function_entries_watched_total",
      help: "Entries into function isolates bounded by the watchdog.",
      value: stats.entries.armed,
      type: "counter",
    },
    {
      name: "tessera_function_entries_timeout_total",
      help: "Entries into function isolates bounded by isolated-vm's timeout (the watchdog did not cover them yet).",
      value: stats.entries.fallbacks,
      type: "counter",
    },
    {
      name: "tessera_function_entries_stopped_total",
      help: "Entries the watchdog stopped, past what was left of their request's CPU time.",
      value: stats.entries.stopped,
      type: "counter",
    },
  ];
}

/** The background queues as an operator watches them: depth, and how far the workers are behind. */
async function queueMetrics(store: Store, now: Date): Promise<MetricSample[]> {
  const [deliveries, runs] = await Promise.all([
    queueStats(store, DELIVERY_QUEUE, now),
    queueStats(store, RUN_QUEUE, now),
  ]);
  return [
    {
      name: "tessera_webhook_deliveries_queued",
      help: `Webhook deliveries waiting for an attempt or in one (counted up to ${QUEUE_COUNT_CAP}).`,
      value: deliveries.queued,
    },
    {
      name: "tessera_webhook_delivery_lag_seconds",
      help: "How long the oldest delivery a worker could attempt now has been due (0: none is).",
      value: deliveries.lagSeconds,
    },
    {
      name: "tessera_function_runs_queued",
      help: `Function trigger runs waiting or running (counted up to ${QUEUE_COUNT_CAP}).`,
      value: runs.queued,
    },
    {
      name: "tessera_function_run_lag_seconds",
      help: "How long the oldest run a worker could claim now has been due (0: none is).",
      value: runs.lagSeconds,
    },
  ];
}

/**
 * The origin a function tool's request names (`{origin}/v1/functions/{name}/invoke`): the functions
 * origin or else the public URL when one is configured, else the address this node listens on.
 */
function syncOrigin(config: Config): string {
  return config.functionsOrigin?.url ?? config.publicUrl ?? `http://${config.host}:${config.port}`;
}
