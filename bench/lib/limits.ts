import { PLANS } from "../../core/index.ts";

/**
 * TESSERA_RATE_LIMITS that count every request but never refuse one: benchmarks
 * send more than any plan allows. Every plan is listed (the config schema wants
 * them all).
 */
export const UNTHROTTLED_RATE_LIMITS = JSON.stringify(
  Object.fromEntries(PLANS.map((plan) => [plan, { limit: 1_000_000_000, window_s: 60 }])),
);
