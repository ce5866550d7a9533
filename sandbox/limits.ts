import { z } from "zod";

/**
 * What one function may use (ARCHITECTURE.md, "Isolation and limits"). Defaults and
 * maxima are operator configuration; a deploy may ask for less or more, up to
 * the maxima.
 */
export const SandboxLimitsSchema = z
  .object({
    /** V8 heap of the isolate; exceeding it disposes the isolate. */
    memoryLimitMb: z.number().int().min(8).max(4096),
    /** CPU time one request may use in the isolate (interleaved requests share the count). */
    cpuTimeLimitMs: z.number().int().min(1).max(600_000),
    /** Time from the request entering the isolate to its response. */
    wallTimeLimitMs: z.number().int().min(1).max(3_600_000),
  })
  .strict();
export type SandboxLimits = z.infer<typeof SandboxLimitsSchema>;

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  memoryLimitMb: 128,
  cpuTimeLimitMs: 50,
  wallTimeLimitMs: 30_000,
});
