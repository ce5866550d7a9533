export * from "./apps.ts";
export * from "./installations.ts";
export * from "./principal.ts";
export * from "./records.ts";
export * from "./scopes.ts";
