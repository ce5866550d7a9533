export * from "./source-files.ts";
export * from "./resolve.ts";
export * from "./compile.ts";
export * from "./function-schemas.ts";
export * from "./functions.ts";
export { renderFunction, renderRun } from "./function-rows.ts";
export * from "./invoke.ts";
export * from "./outbound.ts";
export { connectSocket, linkSocket, type UpgradeHandshake } from "./websocket.ts";
export * from "./function-events.ts";
export * from "./triggers.ts";
export * from "./function-runs.ts";
export { purgeFunctionRuns, RUN_QUEUE, RUNS_CHANNEL } from "./run-queries.ts";
export { purgeFunctionLogs } from "./log-queries.ts";

export * from "./function-host.ts";
export * from "./housekeeping.ts";
export * from "./guarded-http.ts";
export * from "./sync-function-tools.ts";
