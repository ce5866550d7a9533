import type { Redis } from "ioredis";
import type { Clock, Logger, RateLimit } from "../../core/index.ts";

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
  /**
   * Where budgets are counted now: `shared` (Redis, every node), or `local` (this node alone:
   * no Redis configured, or Redis unreachable). `/readyz` reports it.
   */
  counting?(): "shared" | "local";
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
      const now = clock.nowMs();
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
      const { start, resetAt } = windowOf(clock.nowMs(), limit);
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

/**
 * Redis down, rate limits fail open to this node's own count. The choice: refusing every
 * authenticated request (fail closed) turns a cache outage into a whole-API outage, and letting
 * everything through (fail open, no limit) leaves the database unguarded. Counting per node keeps
 * each node's budget (a caller can get up to N × the plan's limit across N nodes) until Redis is
 * back, with no wait: a command is not queued while Redis is disconnected (`enableOfflineQueue:
 * false` in services.ts) and times out fast when it hangs. Back to shared counting at the first
 * command that succeeds.
 */
export function createSharedRateLimiter(
  redis: Redis,
  clock: Clock,
  log: Logger,
  prefix = "tessera:rl",
): RateLimiter {
  const shared = createRedisRateLimiter(redis, clock, prefix);
  const local = createMemoryRateLimiter(clock);
  let counting: "shared" | "local" = "shared";
  const fallBack = (error?: unknown) => {
    if (counting === "local") return;
    counting = "local";
    log.warn("redis unreachable: rate limits counted per node until it is back", { error });
  };
  return {
    async hit(credentialId, limit) {
      if (redis.status === "ready") {
        try {
          const decision = await shared.hit(credentialId, limit);
          if (counting === "local") log.info("redis is back: rate limits shared again");
          counting = "shared";
          return decision;
        } catch (error) {
          fallBack(error);
        }
      } else fallBack();
      return local.hit(credentialId, limit);
    },
    // Disconnected is known at once; a connection that hangs shows at its first failed command.
    counting: () => (redis.status === "ready" ? counting : "local"),
  };
}
