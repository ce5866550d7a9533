import { Hono } from "hono";
import { createKeyCache, type KeyCache } from "../api/auth/key-cache.ts";
import type { AppEnv } from "../api/env.ts";
import { authenticate, createAuthenticator } from "../api/middleware/auth.ts";
import { createMemoryRateLimiter, type RateLimiter } from "../api/rate-limit/index.ts";
import { loadConfig, randomBase62, silentLogger, systemClock } from "../core/index.ts";
import { createApiKey, createOrganization, type KeyPrincipal, OPERATOR } from "../engines/index.ts";
import { createServices, type Services } from "../services.ts";
import { createPgliteStore, migrate, type Store } from "../store/index.ts";
import { UNTHROTTLED_RATE_LIMITS } from "./lib/limits.ts";
import { numberFlag, target, type Benchmark, type BenchOptions, type BenchResult } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";

const SIZES = { full: { requests: 20_000 }, tiny: { requests: 1_000 } };
/** Requests per arm before alternating to the other, so drift hits both arms alike. */
const BATCH = 100;

type Fetcher = { request(path: string, init: RequestInit): Response | Promise<Response> };
interface Arm {
  app: Fetcher;
  path: string;
  /** The status every response must have: a 401 or 429 would measure the wrong path. */
  status: number;
}

/**
 * What authentication and rate limiting add to one request, in process (no socket):
 * `app.request()` on the same trivial route with and without the real
 * `authenticate()` middleware (SHA-256 of the key, the in-process key cache, the
 * in-process limiter, the X-RateLimit-* headers). A second pair does the same in
 * the whole `createApi` stack: the real key cache and limiter against stubs that
 * answer at once, on a route that needs no SQL. Both measure the warm path: the
 * key is cached (one store lookup per key per TESSERA_KEY_CACHE_TTL_MS, 10 s by
 * default, is not in these numbers).
 */
export const authOverhead: Benchmark = {
  name: "auth-overhead",
  summary: "median µs that authentication + rate limiting add per request (in process)",
  async run(options: BenchOptions): Promise<BenchResult> {
    const requests = numberFlag(options.flags, "requests", (options.tiny ? SIZES.tiny : SIZES.full).requests);
    const store = await createPgliteStore();
    const built: Services[] = [];
    try {
      await migrate(store);
      const setup = await createSetup(store);
      const headers = { authorization: `Bearer ${setup.secret}` };
      const middleware = middlewareApps(setup);
      const whole = await wholeApps(setup, built);

      options.log("  authenticate() middleware: with vs without");
      const mw = await compare(middleware.with, middleware.without, headers, requests);
      options.log("  createApi: real key cache + limiter vs stubs");
      const app = await compare(whole.real, whole.stubbed, headers, requests);
      const added = mw.with.median - mw.without.median;
      const addedInApp = app.with.median - app.without.median;
      return {
        name: "auth-overhead",
        description: `${requests.toLocaleString("en-US")} app.request() calls per arm, interleaved in batches of ${BATCH}`,
        params: { requests, batch: BATCH },
        rows: [
          row("with authenticate()", mw.with, `+${added.toFixed(1)} µs median`),
          row("anchor: same route, no auth", mw.without, "—"),
          row("createApi, real keys + limiter", app.with, `+${addedInApp.toFixed(1)} µs median`),
          row("createApi, stub keys + limiter", app.without, "—"),
        ],
        targets: [target("auth + rate limit add < 100 µs median", added, "<", 100, "µs")],
        details: { middleware: mw, createApp: app, addedUs: added, addedInCreateAppUs: addedInApp },
      };
    } finally {
      for (const services of built) await services.dispose();
      await store.dispose();
    }
  },
};

function row(subject: string, summary: ReturnType<typeof summarize>, versusAnchor: string) {
  return { subject, unit: "µs" as const, median: summary.median, p99: summary.p99, versusAnchor };
}

interface Setup {
  store: Store;
  secret: string;
  principal: KeyPrincipal;
  keys: KeyCache;
  rateLimiter: RateLimiter;
  config: ReturnType<typeof loadConfig>;
}

async function createSetup(store: Store): Promise<Setup> {
  const config = loadConfig({
    TESSERA_DATA_DIR: "/nonexistent",
    TESSERA_RATE_LIMITS: UNTHROTTLED_RATE_LIMITS,
  });
  const org = await createOrganization(store, { name: "bench-auth", plan: "enterprise" });
  const key = await createApiKey(store, org.id, { kind: "full_access" }, OPERATOR);
  const keys = createKeyCache({ db: store, clock: systemClock, ttlMs: config.keyCacheTtlMs });
  const principal = await keys.resolve(key.secret);
  if (!principal) throw new Error("the new key does not resolve");
  return {
    store,
    secret: key.secret,
    principal,
    keys,
    rateLimiter: createMemoryRateLimiter(systemClock),
    config,
  };
}

/** The same handler behind the real middleware, and bare. */
function middlewareApps(setup: Setup): { with: Arm; without: Arm } {
  const app = new Hono<AppEnv>();
  app.use("/with/*", authenticate(createAuthenticator({ ...setup, clock: systemClock, log: silentLogger })));
  const handler = (c: { json(value: unknown): Response }) => c.json({ ok: true });
  app.get("/with/ping", handler);
  app.get("/without/ping", handler);
  return {
    with: { app, path: "/with/ping", status: 200 },
    without: { app, path: "/without/ping", status: 200 },
  };
}

/**
 * The whole stack twice. The route answers a 400 from the query-string check,
 * after authentication and the scope check, so no SQL runs in either arm.
 */
async function wholeApps(setup: Setup, built: Services[]): Promise<{ real: Arm; stubbed: Arm }> {
  const app = async (keys: KeyCache, rateLimiter: RateLimiter) => {
    const services = await createServices({
      config: setup.config,
      log: silentLogger,
      store: setup.store,
      secret: randomBase62(48),
      keys,
      rateLimiter,
    });
    built.push(services);
    return services.api().app;
  };
  const stubKeys: KeyCache = {
    resolve: () => Promise.resolve(setup.principal),
    revoke: () => Promise.reject(new Error("not in this bench")),
    invalidate() {},
    clear() {},
  };
  const decision = { allowed: true, limit: 1_000_000_000, remaining: 999_999_999, resetAt: 0 };
  const stubLimiter: RateLimiter = { hit: () => Promise.resolve(decision) };
  const path = "/v1/invoices?status=not-a-status";
  return {
    real: { app: await app(setup.keys, setup.rateLimiter), path, status: 400 },
    stubbed: { app: await app(stubKeys, stubLimiter), path, status: 400 },
  };
}

/** Alternates batches of the two arms after a warm-up; returns each arm's latency summary (µs). */
async function compare(a: Arm, b: Arm, headers: Record<string, string>, requests: number) {
  const samples = { a: [] as number[], b: [] as number[] };
  const run = async (arm: Arm, count: number, into?: number[]) => {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const response = await arm.app.request(arm.path, { headers });
      await response.arrayBuffer();
      into?.push((performance.now() - started) * 1000);
      if (response.status !== arm.status) throw new Error(`${arm.path} answered ${response.status}`);
    }
  };
  await run(a, Math.min(2_000, requests));
  await run(b, Math.min(2_000, requests));
  for (let done = 0; done < requests; done += BATCH) {
    const count = Math.min(BATCH, requests - done);
    const [first, second] = (done / BATCH) % 2 === 0 ? [a, b] : [b, a];
    await run(first, count, first === a ? samples.a : samples.b);
    await run(second, count, second === a ? samples.a : samples.b);
  }
  return { with: summarize(samples.a), without: summarize(samples.b) };
}
