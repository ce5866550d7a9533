export * from "./clock.ts";
export * from "./config.ts";
export * from "./decimal.ts";
export * from "./errors.ts";
export * from "./log.ts";
export * from "./random.ts";
export * from "./secret-box.ts";
export * from "./disposable.ts";
