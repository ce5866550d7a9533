// The public face of webhooks/: what api/ and main.ts may use.
export * from "./signing.ts";
export * from "./endpoint-schemas.ts";
export * from "./endpoints.ts";
export * from "./event-types.ts";
export * from "./backoff.ts";
export * from "./delivery-queries.ts";
export * from "./send.ts";
export * from "./worker.ts";
export * from "./deliveries.ts";
export * from "./housekeeping.ts";
