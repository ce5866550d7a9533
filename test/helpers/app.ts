import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApi, type Api, type createApp } from "../../api/app.ts";
import { listen } from "../../api/listen.ts";
import { createKeyCache } from "../../api/auth/key-cache.ts";
import { createMetrics } from "../../api/metrics.ts";
import { createMemoryRateLimiter, type RateLimiter } from "../../api/rate-limit/index.ts";
import {
  createLogger,
  createSecretBox,
  FakeClock,
  loadConfig,
  randomBase62,
  silentLogger,
  type Config,
  type Logger,
} from "../../core/index.ts";
import {
  createApiKey,
  createOrganization,
  createListCache,
  createResourceServices,
  type ApiKeyCreate,
} from "../../engines/index.ts";
import { createFunctionHost } from "../../runtime/index.ts";
import type { Store } from "../../store/index.ts";

export interface TestApp {
  app: ReturnType<typeof createApp>;
  store: Store;
  clock: FakeClock;
  config: Config;
  /** A new organization (unique name) with a full-access key, or a key of the given kind. */
  newOrg(options?: { plan?: "free" | "pro" | "enterprise"; key?: ApiKeyCreate }): Promise<TestOrg>;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** The response itself (to read a stream), through the same transport as `request`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Runs the organization's functions (what a function run worker is given). */
  invoker: Api["invoker"];
  /** Disposes the function isolates and the HTTP server, if any (tests that invoke functions call it in afterAll). */
  dispose(): Promise<void>;
}

export interface TestOrg {
  id: string;
  name: string;
  key: string;
  keyId: string;
  /** Creates another key in this organization. */
  addKey(input: ApiKeyCreate): Promise<string>;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Raw body text, sent as-is (for malformed JSON tests). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON freely
  body: any;
  text: string;
}

/** TESSERA_SECRET of test apps (unless `env` sets one): seals webhook secrets at rest. */
export const TEST_SECRET = "test-secret-for-sealing-secrets-at-rest-0123456789";

/**
 * The real API over a real store, called with `app.request()` (no socket), or with
 * `http: true` over a real socket as `tessera serve` listens (the invocation data plane
 * in front of the app). Time is a FakeClock so tests step it instead of sleeping.
 */
export function createTestApp(
  store: Store,
  options: {
    env?: Record<string, string>;
    clock?: FakeClock;
    rateLimiter?: RateLimiter;
    log?: Logger;
    http?: boolean;
  } = {},
): TestApp {
  const clock = options.clock ?? new FakeClock(new Date());
  const config = loadConfig({ TESSERA_DATA_DIR: "/nonexistent", ...options.env });
  const log = options.log ?? (process.env.TEST_LOG ? createLogger({ level: "debug" }) : silentLogger);
  const functionHost = createFunctionHost({ config, store, log, clock });
  const api = createApi({
    config,
    store,
    clock,
    log,
    isolates: functionHost.isolates,
    outbound: functionHost.outbound,
    keys: createKeyCache({ db: store, clock, ttlMs: config.keyCacheTtlMs }),
    rateLimiter: options.rateLimiter ?? createMemoryRateLimiter(clock),
    metrics: createMetrics(),
    resources: createResourceServices(store, clock, createListCache(config.listCacheBytes)),
    secretBox: createSecretBox(config.secret ?? TEST_SECRET),
    adminToken: "tsa_test_token",
    ready: () => Promise.resolve(true),
  });
  const { app } = api;
  let server: Promise<Server> | undefined;
  const send = async (path: string, init: RequestInit = {}): Promise<Response> => {
    if (!options.http) return app.request(path, init);
    server ??= listen(api, "127.0.0.1", 0);
    const { port } = (await server).address() as AddressInfo;
    return fetch(`http://127.0.0.1:${port}${path}`, init);
  };

  const request = async (method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await send(path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  const newOrg: TestApp["newOrg"] = async (opts = {}) => {
    const org = await createOrganization(store, {
      name: `test-${randomBase62(10)}`,
      plan: opts.plan ?? "enterprise",
    });
    const key = await createApiKey(store, org.id, opts.key ?? { kind: "full_access" });
    return {
      id: org.id,
      name: org.name,
      key: key.secret,
      keyId: key.id,
      addKey: async (input) => (await createApiKey(store, org.id, input)).secret,
    };
  };

  const dispose = async () => {
    if (server) {
      const listening = await server;
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
    }
    await functionHost.dispose();
  };
  return { app, invoker: api.invoker, store, clock, config, newOrg, request, fetch: send, dispose };
}
