export * from "./limits.ts";
export * from "./protocol.ts";
export * from "./isolate-host.ts";
export * from "./pool.ts";
