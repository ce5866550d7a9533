import { fileURLToPath } from "node:url";
import { closeServer, createHealthApp, createMetricsApp, listen, startTracing } from "./api/index.ts";
import {
  disposable,
  Releasers,
  systemClock,
  type Clock,
  type Config,
  type Disposable,
  type Logger,
} from "./core/index.ts";
import {
  backupJobs,
  countOrganizations,
  createApiKey,
  createUserToken,
  createOrganization,
  createScheduler,
  housekeepingJobs,
  intelligenceJobs,
  OPERATOR,
} from "./engines/index.ts";
import { createFunctionRunWorker, functionJobs } from "./runtime/index.ts";
import { createServices, type Services } from "./services.ts";
import { assertSchemaKnown, migrate, openDataDir, type Store } from "./store/index.ts";
import { createWebhookWorker, webhookJobs } from "./webhooks/index.ts";

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

/**
 * Disposing it drains and stops every part in reverse order of start, then throws what failed
 * (Releasers; each part that failed is logged by name).
 */
export interface RunningServer extends Disposable {
  url: string;
  store: Store;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"));
  const role = options.role ?? "all";
  const releasers = new Releasers();
  const logFailure = (part: string, error: unknown) => log.error("dispose failed", { part, error });
  const embedded = !config.databaseUrl;
  const dataDir = openDataDir(config.dataDir);

  try {
    if (embedded) {
      const running = dataDir.runningServer();
      if (running) throw new Error(`another server (pid ${running.pid}) is using ${config.dataDir}`);
    }
    // Started first, released last: the spans of everything below are sent before it stops.
    const tracing = await startTracing(config.tracing, log);
    releasers.add("tracing", () => tracing.dispose());
    // The key for secrets at rest exists from the first start on (ARCHITECTURE.md, "Security
    // model"); the config requires TESSERA_SECRET with DATABASE_URL, so only embedded mode reads
    // the data dir's.
    const services = await createServices({
      config,
      log,
      clock,
      store: options.store,
      secret: config.secret ?? dataDir.secret(),
      adminToken: embedded ? dataDir.adminToken() : undefined,
    });
    // Torn down last: everything registered below uses the services.
    releasers.add("services", () => services.dispose());
    // A node older than the schema refuses here, before it applies or serves anything.
    await assertSchemaKnown(services.store);
    const applied = await migrate(services.store);
    if (applied.length > 0) log.info("migrations applied", { versions: applied });
    const setupToken = await bootstrapFirstOrganization(services.store, clock, print);

    if (role !== "api") await startBackground(services, releasers);
    // The worker role answers health probes and metrics only.
    const server = await listen(
      role === "worker" ? { app: createHealthApp(services) } : services.api(),
      config.host,
      config.port,
    );
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    const url = `http://${config.host}:${port}`;
    // Closing it closes functions' open WebSockets first (1001, api/server.ts), before the isolates go.
    releasers.add("http server", () => closeServer(server, config.shutdownGraceMs));
    if (role !== "worker") await listenForFunctions(services, releasers, print);
    await listenForMetrics(services, releasers, print);
    if (role !== "api") {
      const runs = createFunctionRunWorker({
        store: services.store,
        clock,
        log,
        invoker: services.invoker,
        config: config.functions,
        origin: config.functionsOrigin?.url ?? config.publicUrl ?? url,
      });
      runs.start();
      // Disposed first: runs in flight finish and are recorded while isolates and the store remain.
      releasers.add("function run worker", () => runs.dispose());
    }
    if (embedded) {
      // With how to run this package's CLI: the standalone @tessera/cli serves functions through it.
      dataDir.markRunning(url, {
        node: process.execPath,
        bin: fileURLToPath(new URL("./bin/tessera.js", import.meta.url)),
      });
      releasers.add("server note", () => dataDir.clearRunning());
    }
    if (setupToken && role !== "worker") {
      print(`set up the first owner of 'default' in a browser (link valid 24 h, once):`);
      print(`  ${config.publicUrl ?? url}/setup/${setupToken}`);
    }
    print(`listening on ${url}`);
    log.info("listening", {
      url,
      role,
      store: services.store.kind,
      redis: Boolean(config.redisUrl),
      functions: config.functionsOrigin?.url,
    });
    return disposable<RunningServer>({
      url,
      store: services.store,
      dispose: () => releasers.dispose(logFailure),
    });
  } catch (error) {
    // The startup error is the one thrown; a part that fails to close as well is logged.
    await releasers.dispose(logFailure).catch(() => undefined);
    throw error;
  }
}

/**
 * The functions origin's own port, when TESSERA_FUNCTIONS_URL names one other than PORT: a second
 * listener that serves function invocations and health probes only (a functions host on the main
 * port is told apart by `Host`, api/server.ts). Closed before the main one, with the same grace.
 */
async function listenForFunctions(
  services: Services,
  releasers: Releasers,
  print: (line: string) => void,
): Promise<void> {
  const { config } = services;
  const served = services.api().functionsOrigin;
  if (!served || config.functionsOrigin?.port === undefined) return;
  const server = await listen(served, config.host, config.functionsOrigin.port);
  releasers.add("functions http server", () => closeServer(server, config.shutdownGraceMs));
  print(`functions served at ${config.functionsOrigin.url} (port ${config.functionsOrigin.port})`);
}

/**
 * `/metrics` on a listener of its own, when TESSERA_METRICS_PORT is set (on TESSERA_METRICS_HOST,
 * loopback unless said): every role's, and then the API's port answers 404 for it. Closed before
 * the main one.
 */
async function listenForMetrics(
  services: Services,
  releasers: Releasers,
  print: (line: string) => void,
): Promise<void> {
  const { config } = services;
  if (!config.metricsListener) return;
  const { host, port } = config.metricsListener;
  const server = await listen({ app: createMetricsApp(services) }, host, port);
  releasers.add("metrics http server", () => closeServer(server, config.shutdownGraceMs));
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  print(`metrics served at http://${host.includes(":") ? `[${host}]` : host}:${bound}/metrics`);
}

/** The worker role's background work: the scheduler's jobs and the webhook worker. */
async function startBackground(services: Services, releasers: Releasers): Promise<void> {
  const { config, store, clock, log, secretBox } = services;
  const jobs = [
    ...housekeepingJobs(config),
    ...intelligenceJobs(config),
    ...webhookJobs(config),
    ...functionJobs(config),
    ...backupJobs(config.backups, services.backupSeal),
  ];
  const scheduler = createScheduler({ store, clock, log, jobs });
  releasers.add("scheduler", () => scheduler.dispose());
  const webhooks = createWebhookWorker({ store, clock, log, config, box: secretBox });
  await webhooks.start();
  // Disposed before the store: in-flight sends finish and are recorded first.
  releasers.add("webhook worker", () => webhooks.dispose());
}

/**
 * First start on an empty store: an organization `default` and its key, printed once, and a
 * one-time setup link for its first owner (printed once the server listens: it needs the URL).
 * Returns the link's token.
 */
async function bootstrapFirstOrganization(
  store: Store,
  clock: Clock,
  print: (line: string) => void,
): Promise<string | undefined> {
  const created = await store.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(724551002)");
    if ((await countOrganizations(tx)) > 0) return undefined;
    const org = await createOrganization(tx, { name: "default", plan: "free" });
    const key = await createApiKey(tx, org.id, { kind: "full_access", name: "first key" }, OPERATOR);
    const setup = await createUserToken(tx, clock, {
      purpose: "setup",
      orgId: org.id,
      role: "owner",
      ttlMs: SETUP_LINK_TTL_MS,
    });
    return { key, setup };
  });
  if (!created) return undefined;
  print("created organization 'default'; its full-access API key (shown once, store it now):");
  print(`  ${created.key.secret}`);
  return created.setup;
}

/** How long the first owner's setup link stays valid. */
const SETUP_LINK_TTL_MS = 24 * 60 * 60 * 1000;
