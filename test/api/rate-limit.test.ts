import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter, createSharedRateLimiter } from "../../api/rate-limit/index.ts";
import { startCuttableProxy } from "../helpers/proxy.ts";
import { FakeClock, randomBase62, silentLogger } from "../../core/index.ts";
import { useTestApp, withTestApp, type TestApp, type TestResponse } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/** Free: 3 requests a minute. Pro: 5 an hour, a longer window than free's. */
const LIMITS = JSON.stringify({ free: { limit: 3, window_s: 60 }, pro: { limit: 5, window_s: 3600 } });
const REDIS_URL = process.env.TEST_REDIS_URL;
/** 10 s into a minute: the window resets at 10:01:00, 50 s later. */
const START = "2025-03-15T10:00:10Z";
const WINDOW_END_S = Date.parse("2025-03-15T10:01:00Z") / 1000;

const rateHeaders = (response: TestResponse) => ({
  limit: response.headers.get("x-ratelimit-limit"),
  remaining: response.headers.get("x-ratelimit-remaining"),
  reset: response.headers.get("x-ratelimit-reset"),
});

describe.each(storeKinds())("rate limits on $name", (kind) => {
  const t = useTestApp(kind, { env: { TESSERA_RATE_LIMITS: LIMITS } });

  it("sets X-RateLimit-* on every authenticated response, errors included", async () => {
    t.clock.set(START);
    const org = await t.newOrg({ plan: "enterprise" });
    const readOnly = await org.addKey({ kind: "read_only" });
    const responses = [
      await t.request("GET", "/v1/contacts", { key: org.key }),
      await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } }),
      await t.request("POST", "/v1/contacts", { key: org.key, body: {} }),
      await t.request("GET", "/v1/contacts/con_missing", { key: org.key }),
      await t.request("GET", "/v1/no_such_route", { key: org.key }),
      await t.request("PUT", "/v1/contacts", { key: org.key, body: {} }),
      await t.request("GET", "/v1/me", { key: org.key }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 201, 422, 404, 404, 405, 200]);
    responses.forEach((response, index) => {
      expect(rateHeaders(response)).toEqual({
        limit: "60000",
        remaining: String(60000 - index - 1),
        reset: String(WINDOW_END_S),
      });
    });
    const forbidden = await t.request("POST", "/v1/contacts", { key: readOnly, body: { name: "Bob" } });
    expect(forbidden.status).toBe(403);
    expect(rateHeaders(forbidden).remaining).toBe("59999");
  });

  it("answers 429 rate_limited with Retry-After once the plan's limit is spent", async () => {
    t.clock.set(START);
    const org = await t.newOrg({ plan: "free" });
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push(await t.request("GET", "/v1/contacts", { key: org.key }));
    expect(allowed.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(allowed.map((r) => rateHeaders(r).remaining)).toEqual(["2", "1", "0"]);

    const limited = await t.request("GET", "/v1/contacts", { key: org.key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("50");
    expect(rateHeaders(limited)).toEqual({ limit: "3", remaining: "0", reset: String(WINDOW_END_S) });
    expect(limited.headers.get("x-request-id")).not.toBeNull();

    // Writes are refused too, and a refused request does not run.
    const write = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } });
    expect(write.status).toBe(429);
    t.clock.advance(49_000);
    expect((await t.request("GET", "/v1/contacts", { key: org.key })).headers.get("retry-after")).toBe("1");
  });

  it("restores service when the clock steps into the next window", async () => {
    t.clock.set(START);
    const org = await t.newOrg({ plan: "free" });
    for (let i = 0; i < 3; i++) await t.request("GET", "/v1/contacts", { key: org.key });
    expect((await t.request("GET", "/v1/contacts", { key: org.key })).status).toBe(429);

    t.clock.set("2025-03-15T10:01:00Z");
    const next = await t.request("GET", "/v1/contacts", { key: org.key });
    expect(next.status).toBe(200);
    expect(rateHeaders(next)).toEqual({ limit: "3", remaining: "2", reset: String(WINDOW_END_S + 60) });
    // Nothing was written while limited.
    expect(next.body.meta.total).toBe(0);
  });

  it("gives each credential its own budget, even within one organization", async () => {
    t.clock.set(START);
    const org = await t.newOrg({ plan: "free" });
    const second = await org.addKey({ kind: "full_access" });
    for (let i = 0; i < 3; i++) await t.request("GET", "/v1/contacts", { key: org.key });
    expect((await t.request("GET", "/v1/contacts", { key: org.key })).status).toBe(429);

    const other = await t.request("GET", "/v1/contacts", { key: second });
    expect(other.status).toBe(200);
    expect(rateHeaders(other).remaining).toBe("2");
  });

  it("limits by the organization's plan", async () => {
    t.clock.set(START);
    const free = await t.newOrg({ plan: "free" });
    const enterprise = await t.newOrg({ plan: "enterprise" });
    for (let i = 0; i < 4; i++) await t.request("GET", "/v1/contacts", { key: free.key });
    const response = await t.request("GET", "/v1/contacts", { key: enterprise.key });
    expect(response.status).toBe(200);
    expect(rateHeaders(response).limit).toBe("60000");
  });

  it("keeps a long window's count while shorter windows of other plans roll over", async () => {
    t.clock.set(START);
    const pro = await t.newOrg({ plan: "pro" });
    const free = await t.newOrg({ plan: "free" });
    for (let i = 0; i < 5; i++) await t.request("GET", "/v1/contacts", { key: pro.key });
    expect((await t.request("GET", "/v1/contacts", { key: pro.key })).status).toBe(429);

    // Minutes pass; free keys keep the limiter busy in their own one-minute windows.
    for (let minute = 1; minute <= 3; minute++) {
      t.clock.advance(61_000);
      expect((await t.request("GET", "/v1/contacts", { key: free.key })).status).toBe(200);
    }
    const stillLimited = await t.request("GET", "/v1/contacts", { key: pro.key });
    expect(stillLimited.status).toBe(429);
    expect(rateHeaders(stillLimited).remaining).toBe("0");
  });

  describe.runIf(REDIS_URL)("with a shared Redis budget", () => {
    let redis: Redis;
    beforeAll(() => {
      redis = new Redis(REDIS_URL!, { maxRetriesPerRequest: 2 });
    });
    afterAll(async () => {
      await redis.quit();
    });

    it("counts requests to two nodes against one budget", async () => {
      const clock = new FakeClock(START);
      const prefix = `tessera:test:rl:${randomBase62(12)}`;
      const options = {
        env: { TESSERA_RATE_LIMITS: LIMITS },
        clock,
        rateLimiter: createRedisRateLimiter(redis, clock, prefix),
      };
      await withTestApp(t.store, options, (a) => withTestApp(t.store, options, (b) => twoNodes(a, b, clock)));
    });

    const twoNodes = async (a: TestApp, b: TestApp, clock: FakeClock) => {
      const org = await a.newOrg({ plan: "free" });

      const statuses = [];
      for (const node of [a, b, a, b]) {
        statuses.push((await node.request("GET", "/v1/contacts", { key: org.key })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await a.request("GET", "/v1/contacts", { key: org.key });
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("50");

      clock.set("2025-03-15T10:01:00Z");
      const next = await b.request("GET", "/v1/contacts", { key: org.key });
      expect(next.status).toBe(200);
      expect(rateHeaders(next).remaining).toBe("2");
    };

    it("keeps separate budgets per credential in Redis too", async () => {
      const clock = new FakeClock(START);
      const prefix = `tessera:test:rl:${randomBase62(12)}`;
      const options = {
        env: { TESSERA_RATE_LIMITS: LIMITS },
        clock,
        rateLimiter: createRedisRateLimiter(redis, clock, prefix),
      };
      await withTestApp(t.store, options, async (node) => {
        const org = await node.newOrg({ plan: "free" });
        const second = await org.addKey({ kind: "full_access" });
        for (let i = 0; i < 4; i++) await node.request("GET", "/v1/contacts", { key: org.key });
        expect((await node.request("GET", "/v1/contacts", { key: second })).status).toBe(200);
      });
    });

    it("counts on this node alone while Redis is unreachable, at once, and shares again when it is back", async () => {
      const proxy = await startCuttableProxy(new URL(REDIS_URL!));
      const cut = new Redis(proxy.url, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        commandTimeout: 500,
      });
      cut.on("error", () => {});
      try {
        const clock = new FakeClock(START);
        const prefix = `tessera:test:rl:${randomBase62(12)}`;
        const limiter = createSharedRateLimiter(cut, clock, silentLogger, prefix);
        const limit = { limit: 3, window_s: 60 };
        await expect.poll(() => cut.status).toBe("ready");
        expect((await limiter.hit("key_a", limit)).remaining).toBe(2);
        expect(limiter.counting!()).toBe("shared");

        proxy.down();
        await expect.poll(() => cut.status).not.toBe("ready");
        // The node's own count: the first hit of this node, and the limit still holds.
        const decisions = [];
        for (let i = 0; i < 4; i++) decisions.push((await limiter.hit("key_a", limit)).allowed);
        expect(decisions).toEqual([true, true, true, false]);
        expect(limiter.counting!()).toBe("local");

        proxy.up();
        await expect.poll(() => cut.status, { timeout: 10_000 }).toBe("ready");
        // Back in Redis, where the window already holds the first hit.
        expect((await limiter.hit("key_a", limit)).remaining).toBe(1);
        expect(limiter.counting!()).toBe("shared");
      } finally {
        cut.disconnect();
        await proxy.close();
      }
    }, 30_000);
  });
});
