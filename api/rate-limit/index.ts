import type { Redis } from "ioredis";
import type { Clock, RateLimit } from "../../core/index.ts";

/**
 * Fixed-window rate limiting per credential. The in-process limiter serves one
 * node; with REDIS_URL every node counts in the same Redis key, so several
 * instances share one budget.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds when the window resets. */
  resetAt: number;
}

export interface RateLimiter {
  hit(credentialId: string, limit: RateLimit): Promise<RateDecision>;
}

function windowOf(now: number, limit: RateLimit) {
  const windowMs = limit.window_s * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, resetAt: Math.ceil((start + windowMs) / 1000) };
}

function decide(count: number, limit: RateLimit, resetAt: number): RateDecision {
  return {
    allowed: count <= limit.limit,
    limit: limit.limit,
    remaining: Math.max(0, limit.limit - count),
    resetAt,
  };
}

export function createMemoryRateLimiter(clock: Clock): RateLimiter {
  const counters = new Map<string, { start: number; endMs: number; count: number }>();
  let lastSweep = 0;
  return {
    hit(credentialId, limit) {
      const now = clock.now().getTime();
      const { start, resetAt } = windowOf(now, limit);
      // Forget finished windows now and then, so idle credentials cost nothing. Each
      // counter's own end decides: plans differ in window length, so another
      // credential's window start says nothing about whether this one is over.
      if (now - lastSweep > 60_000) {
        for (const [key, counter] of counters) if (counter.endMs <= now) counters.delete(key);
        lastSweep = now;
      }
      const counter = counters.get(credentialId);
      const next = counter && counter.start === start ? counter.count + 1 : 1;
      counters.set(credentialId, { start, endMs: start + limit.window_s * 1000, count: next });
      return Promise.resolve(decide(next, limit, resetAt));
    },
  };
}

export function createRedisRateLimiter(redis: Redis, clock: Clock, prefix = "tessera:rl"): RateLimiter {
  return {
    async hit(credentialId, limit) {
      const { start, resetAt } = windowOf(clock.now().getTime(), limit);
      const key = `${prefix}:${credentialId}:${start}`;
      const results = await redis
        .multi()
        .incr(key)
        .pexpire(key, limit.window_s * 1000 + 1000)
        .exec();
      const [error, count] = results?.[0] ?? [new Error("no reply from redis"), 0];
      if (error) throw error;
      return decide(Number(count), limit, resetAt);
    },
  };
}
