export * from "./limits.ts";
export * from "./invocation.ts";
export { GUEST_OPS, SLOTLESS_OPS, parseGuestOp, type GuestEntry, type GuestOp } from "./protocol.ts";
export { loadGuestPlatform, type GuestPlatform } from "./platform.ts";
export * from "./isolate-host.ts";
export * from "./pool.ts";
export { watchdog, type Watchdog, type WatchdogStats } from "./watchdog.ts";
export { setProcessV8Flags, PROCESS_V8_FLAGS } from "./v8-flags.ts";
