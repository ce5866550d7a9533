export * from "./source-files.ts";
export * from "./resolve.ts";
export * from "./compile.ts";
