import type { Server } from "node:http";
import { Redis } from "ioredis";
import {
  createApi,
  createHealthApp,
  listen,
  createKeyCache,
  createMemoryRateLimiter,
  createMetrics,
  createRedisRateLimiter,
  withCrossNodeInvalidation,
  type ApiDeps,
  type MetricSample,
  type RateLimiter,
} from "./api/index.ts";
import {
  createSecretBox,
  Releasers,
  systemClock,
  type Clock,
  type Config,
  type Logger,
} from "./core/index.ts";
import {
  countOrganizations,
  createApiKey,
  createOrganization,
  createListCache,
  createResourceServices,
  createScheduler,
  housekeepingJobs,
  intelligenceJobs,
} from "./engines/index.ts";
import { createFunctionHost, createFunctionRunWorker, functionJobs, RUN_QUEUE } from "./runtime/index.ts";
import type { SandboxStats } from "./sandbox/index.ts";
import {
  migrate,
  openDataDir,
  openStore,
  pendingMigrations,
  queueStats,
  QUEUE_COUNT_CAP,
  type Store,
} from "./store/index.ts";
import { createWebhookWorker, DELIVERY_QUEUE, webhookJobs } from "./webhooks/index.ts";

/**
 * The composition root: config → store → migrations → engines → api → serve.
 * Each long-lived part is registered with its releaser and torn down in reverse.
 */
export type Role = "all" | "api" | "worker";

export interface ServerOptions {
  config: Config;
  /**
   * `api` serves /v1; `worker` runs the scheduler, the webhook worker and the function run
   * worker (and health probes); `all` does both.
   */
  role?: Role;
  log: Logger;
  clock?: Clock;
  /** Where to print the human lines (URL, first key). */
  print?: (line: string) => void;
  /** Use this store instead of opening one (tests). */
  store?: Store;
}

export interface RunningServer {
  url: string;
  store: Store;
  dispose(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"));
  const releasers = new Releasers();
  const embedded = !config.databaseUrl;
  const dataDir = openDataDir(config.dataDir);

  try {
    if (embedded) {
      const running = dataDir.runningServer();
      if (running) throw new Error(`another server (pid ${running.pid}) is using ${config.dataDir}`);
    }
    // The key for secrets at rest exists from the first start on (DESIGN.md); the config
    // requires TESSERA_SECRET with DATABASE_URL, so only embedded mode reads the data dir's.
    const secretBox = createSecretBox(config.secret ?? dataDir.secret());
    const store = options.store ?? (await openStore(config));
    if (!options.store) releasers.add("store", () => store.dispose());
    const applied = await migrate(store);
    if (applied.length > 0) log.info("migrations applied", { versions: applied });
    await bootstrapFirstOrganization(store, print);

    const role = options.role ?? "all";
    if (role !== "api") {
      const jobs = [
        ...housekeepingJobs(config),
        ...intelligenceJobs(config),
        ...webhookJobs(config),
        ...functionJobs(config),
      ];
      const scheduler = createScheduler({ store, clock, log, jobs });
      releasers.add("scheduler", () => scheduler.dispose());
      const webhooks = createWebhookWorker({ store, clock, log, config, box: secretBox });
      await webhooks.start();
      // Disposed before the store: in-flight sends finish and are recorded first.
      releasers.add("webhook worker", () => webhooks.dispose());
    }

    const redis = config.redisUrl ? connectRedis(config.redisUrl, log, releasers, "redis") : undefined;
    const rateLimiter: RateLimiter = redis
      ? createRedisRateLimiter(redis, clock)
      : createMemoryRateLimiter(clock);
    const localKeys = createKeyCache({ db: store, clock, ttlMs: config.keyCacheTtlMs });
    const keys = redis
      ? await withCrossNodeInvalidation(
          localKeys,
          redis,
          connectRedis(config.redisUrl!, log, releasers, "redis subscriber"),
          (error) => log.warn("key revocation broadcast failed", { error }),
        )
      : localKeys;
    const metrics = createMetrics();
    const listCache = createListCache(config.listCacheBytes);
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
    const functionHost = createFunctionHost({ config, store, log, clock });
    metrics.collect(async () => sandboxMetrics(await functionHost.isolates.stats()));
    // Disposed after the HTTP server (registered later, so torn down first): no request is left to serve.
    releasers.add("function isolates", () => functionHost.dispose());
    const deps: ApiDeps = {
      isolates: functionHost.isolates,
      outbound: functionHost.outbound,
      config,
      store,
      clock,
      log,
      keys,
      rateLimiter,
      metrics,
      resources: createResourceServices(store, clock, listCache),
      secretBox,
      adminToken: embedded ? dataDir.adminToken() : undefined,
      ready: async () => (await pendingMigrations(store)).length === 0,
    };
    // The worker role serves only health probes, but its trigger runs need the whole API in-process.
    const api = createApi(deps);
    const server = await listen(
      role === "worker" ? { app: createHealthApp(deps) } : api,
      config.host,
      config.port,
    );
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    const url = `http://${config.host}:${port}`;
    releasers.add("http server", () => closeServer(server, config.shutdownGraceMs));
    if (role !== "api") {
      const runs = createFunctionRunWorker({
        store,
        clock,
        log,
        invoker: api.invoker,
        config: config.functions,
        origin: config.publicUrl ?? url,
      });
      runs.start();
      // Disposed first: runs in flight finish and are recorded while isolates and the store remain.
      releasers.add("function run worker", () => runs.dispose());
    }
    if (embedded) {
      dataDir.markRunning(url);
      releasers.add("server note", () => dataDir.clearRunning());
    }
    print(`listening on ${url}`);
    log.info("listening", { url, role, store: store.kind, redis: Boolean(redis) });
    return {
      url,
      store,
      dispose: () => releasers.dispose((name, error) => log.error("dispose failed", { part: name, error })),
    };
  } catch (error) {
    await releasers.dispose();
    throw error;
  }
}

/** First start on an empty store: an organization `default` and its key, printed once. */
async function bootstrapFirstOrganization(store: Store, print: (line: string) => void): Promise<void> {
  const created = await store.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(724551002)");
    if ((await countOrganizations(tx)) > 0) return undefined;
    const org = await createOrganization(tx, { name: "default", plan: "free" });
    return createApiKey(tx, org.id, { kind: "full_access", name: "first key" });
  });
  if (!created) return;
  print("created organization 'default'; its full-access API key (shown once, store it now):");
  print(`  ${created.secret}`);
}

function connectRedis(url: string, log: Logger, releasers: Releasers, name: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  redis.on("error", (error) => log.warn("redis error", { connection: name, error }));
  releasers.add(name, async () => void (await redis.quit().catch(() => redis.disconnect())));
  return redis;
}

/** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if ("closeAllConnections" in server) server.closeAllConnections();
      resolve();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    if ("closeIdleConnections" in server) server.closeIdleConnections();
  });
}

/** Entries into function isolates, as the sandbox's watchdog counted them. */
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
