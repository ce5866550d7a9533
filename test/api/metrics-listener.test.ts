import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, silentLogger } from "../../core/index.ts";
import { startServer, type RunningServer, type Role } from "../../main.ts";
import { migrate, type Store } from "../../store/index.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { openMigratedPglite } from "../helpers/pglite-image.ts";
import { freePort } from "../helpers/ports.ts";

/**
 * `/metrics` on a listener of its own (TESSERA_METRICS_PORT): the real `serve` (main.ts) with
 * its listeners. There, the token rule of the API's port when TESSERA_METRICS_TOKEN is set, and
 * none without (the listener is on loopback); the API's port answers 404 for it.
 */

const METRICS_TOKEN = "metrics-token-0123456789";

interface Started {
  server: RunningServer;
  store: Store;
  metricsUrl: string;
  dataDir: string;
}

async function start(role: Role, env: Record<string, string>): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-metrics-"));
  const store = await openMigratedPglite();
  await migrate(store);
  const port = await freePort();
  const config = loadConfig({
    PORT: "0",
    TESSERA_DATA_DIR: dataDir,
    TESSERA_SECRET: TEST_SECRET,
    TESSERA_METRICS_PORT: String(port),
    ...env,
  });
  const printed: string[] = [];
  const server = await startServer({
    config,
    role,
    log: silentLogger,
    store,
    print: (line) => printed.push(line),
  });
  expect(printed).toContain(`metrics served at http://127.0.0.1:${port}/metrics`);
  return { server, store, metricsUrl: `http://127.0.0.1:${port}/metrics`, dataDir };
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started) return;
  await started.server.dispose();
  await started.store.dispose();
  rmSync(started.dataDir, { recursive: true, force: true });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("/metrics on a listener of its own, with TESSERA_METRICS_TOKEN", () => {
  let started: Started;
  beforeAll(async () => {
    started = await start("all", { TESSERA_METRICS_TOKEN: METRICS_TOKEN });
  }, 60_000);
  afterAll(() => stop(started));

  it("answers 401 without the token or with a wrong one, and the scrape with it", async () => {
    const none = await fetch(started.metricsUrl);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="tessera-metrics"');
    const wrong = await fetch(started.metricsUrl, { headers: bearer("not-the-metrics-token") });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // A request on the API's port, counted where the scrape reads it.
    expect((await fetch(`${started.server.url}/healthz`)).status).toBe(200);
    const scraped = await fetch(started.metricsUrl, { headers: bearer(METRICS_TOKEN) });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scraped.text();
    expect(text).toMatch(/^tessera_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m);
    // The scrape does not count itself.
    expect(text).not.toContain('route="/metrics"');
  });

  it("takes the data dir's operator token there too", async () => {
    const operator = readFileSync(join(started.dataDir, "admin.token"), "utf8").trim();
    expect((await fetch(started.metricsUrl, { headers: bearer(operator) })).status).toBe(200);
  });

  it("is not on the API's port, with the token or without", async () => {
    const main = await fetch(`${started.server.url}/metrics`, { headers: bearer(METRICS_TOKEN) });
    expect(main.status).toBe(404);
    expect(main.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await main.text()).not.toContain("tessera_http_requests_total");
  });

  it("serves nothing else", async () => {
    const other = new URL("/healthz", started.metricsUrl);
    expect((await fetch(other, { headers: bearer(METRICS_TOKEN) })).status).toBe(404);
    expect((await fetch(new URL("/v1/me", started.metricsUrl))).status).toBe(404);
  });
});

describe("/metrics on a listener of its own, without a token, on a worker", () => {
  let started: Started;
  beforeAll(async () => {
    started = await start("worker", {});
  }, 60_000);
  afterAll(() => stop(started));

  it("answers the scrape on loopback without a token, and 404 on the worker's port", async () => {
    const scraped = await fetch(started.metricsUrl);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("# TYPE tessera_process_uptime_seconds gauge");
    expect((await fetch(`${started.server.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${started.server.url}/healthz`)).status).toBe(200);
  });
});
