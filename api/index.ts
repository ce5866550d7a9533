export { createApi, createHealthApp, createMetricsApp, type Api } from "./app.ts";
export { closeServer, listen, type Served } from "./server.ts";
export { startTracing } from "./tracing.ts";
export { createKeyCache, type KeyCache } from "./auth/key-cache.ts";
export type { ApiDeps, AppEnv } from "./env.ts";
export { createMetrics, type MetricSample, type Metrics } from "./metrics.ts";
export {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  createSharedRateLimiter,
  type RateDecision,
  type RateLimiter,
} from "./rate-limit/index.ts";
