export * from "./source-files.ts";
export * from "./resolve.ts";
export * from "./compile.ts";
export * from "./function-schemas.ts";
export * from "./functions.ts";
export * from "./invoke.ts";
export * from "./outbound.ts";
export * from "./function-events.ts";
export * from "./triggers.ts";
export * from "./function-runs.ts";

export * from "./host.ts";
export * from "./housekeeping.ts";
