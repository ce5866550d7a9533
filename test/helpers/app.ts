import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import type { Api } from "../../api/app.ts";
import { listen } from "../../api/server.ts";
import type { RateLimiter } from "../../api/rate-limit/index.ts";
import {
  createLogger,
  disposable,
  FakeClock,
  loadConfig,
  randomBase62,
  silentLogger,
  type Config,
  type Disposable,
  type Logger,
} from "../../core/index.ts";
import { createApiKey, createOrganization, OPERATOR, type ApiKeyCreate } from "../../engines/index.ts";
import { createServices, type Services } from "../../services.ts";
import type { Store } from "../../store/index.ts";
import type { StoreKind } from "./stores.ts";

export interface TestApp extends Disposable {
  app: Api["app"];
  /** Every service of the app, as `createServices` built them. */
  services: Services;
  store: Store;
  clock: FakeClock;
  config: Config;
  /** A new organization (unique name) with a full-access key, or a key of the given kind. */
  newOrg(options?: { plan?: "free" | "pro" | "enterprise"; key?: ApiKeyCreate }): Promise<TestOrg>;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** The response itself (to read a stream), through the same transport as `request`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Runs the organization's functions (what a function run worker is given). */
  invoker: Services["invoker"];
  /** Closes the HTTP server, if any, and disposes the services (not the store, which the caller owns). */
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

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: FakeClock;
  rateLimiter?: RateLimiter;
  log?: Logger;
  /** Serve over a real socket, as `tessera serve` listens (the invocation path's socket adapter first). */
  http?: boolean;
}

/** Apps made and not yet disposed: test/setup.ts fails a file that leaves one open. */
export const openTestApps = new Set<TestApp>();

/**
 * The real API over a real store, built by `createServices` as the server builds it, called
 * with `app.request()` (no socket), or with `http: true` over a real socket. Time is a
 * FakeClock so tests step it instead of sleeping. Dispose it (or use `useTestApp`).
 */
export async function createTestApp(store: Store, options: TestAppOptions = {}): Promise<TestApp> {
  const clock = options.clock ?? new FakeClock(new Date());
  const config = loadConfig({ TESSERA_DATA_DIR: "/nonexistent", ...options.env });
  const log = options.log ?? (process.env.TEST_LOG ? createLogger({ level: "debug" }) : silentLogger);
  const services = await createServices({
    config,
    log,
    clock,
    store,
    secret: config.secret ?? TEST_SECRET,
    rateLimiter: options.rateLimiter,
    adminToken: "tsa_test_token",
  });
  const api = services.api();
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
    const key = await createApiKey(store, org.id, opts.key ?? { kind: "full_access" }, OPERATOR);
    return {
      id: org.id,
      name: org.name,
      key: key.secret,
      keyId: key.id,
      addKey: async (input) => (await createApiKey(store, org.id, input, OPERATOR)).secret,
    };
  };

  const dispose = async () => {
    openTestApps.delete(testApp);
    if (server) {
      const listening = await server;
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
    }
    await services.dispose();
  };
  const testApp: TestApp = disposable({
    app,
    services,
    invoker: services.invoker,
    store,
    clock,
    config,
    newOrg,
    request,
    fetch: send,
    dispose,
  });
  openTestApps.add(testApp);
  return testApp;
}

/** Runs `use` with a second app on the same store (other settings), disposed after it. */
export async function withTestApp<T>(
  store: Store,
  options: TestAppOptions,
  use: (t: TestApp) => Promise<T>,
): Promise<T> {
  const t = await createTestApp(store, options);
  try {
    return await use(t);
  } finally {
    await t.dispose();
  }
}

/**
 * A suite's app on one store kind: opens a migrated store and builds the app before the
 * suite's tests, disposes both after them. Read its members inside tests and hooks.
 *
 * @example
 *   describe.each(storeKinds())("deals on $name", (kind) => {
 *     const t = useTestApp(kind);
 *     it("creates a deal", async () => { const org = await t.newOrg(); … });
 *   });
 */
export function useTestApp(kind: StoreKind, options: TestAppOptions = {}): TestApp {
  let current: TestApp | undefined;
  let store: Store | undefined;
  beforeAll(async () => {
    store = await kind.open();
    current = await createTestApp(store, options);
  });
  afterAll(async () => {
    await current?.dispose();
    await store?.dispose();
  });
  const app = () => {
    if (!current) throw new Error("useTestApp: the app exists from the suite's beforeAll on");
    return current;
  };
  return disposable({
    get app() {
      return app().app;
    },
    get services() {
      return app().services;
    },
    get invoker() {
      return app().invoker;
    },
    get store() {
      return app().store;
    },
    get clock() {
      return app().clock;
    },
    get config() {
      return app().config;
    },
    newOrg: (opts) => app().newOrg(opts),
    request: (method, path, opts) => app().request(method, path, opts),
    fetch: (path, init) => app().fetch(path, init),
    dispose: () => app().dispose(),
  });
}
