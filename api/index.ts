export { createApi, createApp, createHealthApp, type Api } from "./app.ts";
export { listen } from "./listen.ts";
export {
  broadcastKeyRevoked,
  createKeyCache,
  withCrossNodeInvalidation,
  type KeyCache,
} from "./auth/key-cache.ts";
export type { ApiDeps, AppEnv } from "./env.ts";
export { createMetrics, type MetricSample, type Metrics } from "./metrics.ts";
export {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateDecision,
  type RateLimiter,
} from "./rate-limit/index.ts";
