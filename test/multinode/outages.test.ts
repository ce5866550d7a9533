import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createOrganization, OPERATOR } from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { privateDatabase } from "../helpers/webhooks.ts";
import { call, createCluster, type Cluster } from "./cluster.ts";
import { startCuttableProxy, type CuttableProxy } from "../helpers/proxy.ts";

/**
 * What an API node does while PostgreSQL or Redis cannot be reached, and after: it tells the
 * load balancer (`/readyz`) and its clients (503, Retry-After) the truth, does not crash, and
 * serves again by itself once the dependency is back. The outages are cut connections through
 * a TCP proxy that then refuses new ones, as a stopped server's host does.
 */
const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const enabled = Boolean(databaseUrl && redisUrl);
if (!enabled) {
  console.warn("test/multinode outages skipped: they need TEST_DATABASE_URL and TEST_REDIS_URL");
}

describe.skipIf(!enabled)("an API node through outages of PostgreSQL and Redis", () => {
  let db: Store & { url: string };
  let postgresProxy: CuttableProxy;
  let redisProxy: CuttableProxy;
  let cluster: Cluster;
  let node: ServerProcess;
  let key: string;

  beforeAll(async () => {
    db = await privateDatabase(databaseUrl!);
    const org = await createOrganization(db, { name: "outages", plan: "enterprise" });
    key = (await createApiKey(db, org.id, { kind: "full_access", name: "outages" }, OPERATOR)).secret;
    postgresProxy = await startCuttableProxy(new URL(db.url));
    redisProxy = await startCuttableProxy(new URL(redisUrl!));
    cluster = createCluster({
      DATABASE_URL: postgresProxy.url,
      REDIS_URL: redisProxy.url,
      // The key stays cached through the outage: what fails is the request's own query.
      TESSERA_KEY_CACHE_TTL_MS: "600000",
    });
    node = await cluster.start("api");
  }, 60_000);

  afterAll(async () => {
    await cluster?.destroy();
    await postgresProxy?.close();
    await redisProxy?.close();
    await db?.dispose();
  });

  const contacts = () => call(node, "GET", "/v1/contacts", { key });

  it("answers 503 on /readyz and on /v1 (problem+json, Retry-After) while PostgreSQL is unreachable, then recovers", async () => {
    expect((await contacts()).status).toBe(200);
    postgresProxy.down();
    try {
      expect((await call(node, "GET", "/readyz")).status).toBe(503);
      const refused = await contacts();
      expect(refused.status).toBe(503);
      expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(refused.body.code).toBe("unavailable");
      expect((await call(node, "GET", "/healthz")).status).toBe(200);
    } finally {
      postgresProxy.up();
    }
    await expect.poll(async () => (await call(node, "GET", "/readyz")).status, { timeout: 15_000 }).toBe(200);
    expect((await contacts()).status).toBe(200);
    expect(node.child.exitCode).toBeNull();
  });

  it("serves while Redis is unreachable, counting rate limits on the node alone, and shares them again after", async () => {
    expect((await call(node, "GET", "/readyz")).body).toMatchObject({
      status: "ready",
      rate_limits: "shared",
    });
    redisProxy.down();
    try {
      // Rate limits fail open to the node's own count: the request is served, with its headers.
      await expect
        .poll(async () => (await call(node, "GET", "/readyz")).body.rate_limits, { timeout: 10_000 })
        .toBe("local");
      const served = await contacts();
      expect(served.status).toBe(200);
      expect(served.headers.get("x-ratelimit-limit")).toBeTruthy();
      // Redis is not the store: /readyz keeps the node in the load balancer, and says how it counts.
      expect((await call(node, "GET", "/readyz")).status).toBe(200);
    } finally {
      redisProxy.up();
    }
    await expect
      .poll(
        async () => {
          await contacts();
          return (await call(node, "GET", "/readyz")).body.rate_limits;
        },
        { timeout: 20_000 },
      )
      .toBe("shared");
    expect(node.child.exitCode).toBeNull();
  }, 40_000);
});
