export * from "./limits.ts";
export * from "./invocation.ts";
export { GUEST_OPS, SLOTLESS_OPS, parseGuestOp, type GuestEntry, type GuestOp } from "./protocol.ts";
export { buildGuestPlatform, type GuestPlatform } from "./web-platform.ts";
export { createFunctionFileSet, type FunctionFileSet } from "./function-files.ts";
export type { IsolateHost, IsolateHostOptions } from "./isolate.ts";
export {
  MODULE_GLOBAL,
  TOP_LEVEL_HOOK,
  moduleAsScript,
  type GuestProgram,
} from "./program.ts";
export type { FunctionKey, IsolatePool, LoadedFunction, PoolStats } from "./pool.ts";
export { createSandbox, type Sandbox, type SandboxOptions, type SandboxStats } from "./sandbox.ts";
export { setProcessV8Flags, PROCESS_V8_FLAGS } from "./v8-flags.ts";
export type { Watchdog, WatchdogStats } from "./watchdog.ts";
