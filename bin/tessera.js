#!/usr/bin/env node
// Loads the TypeScript sources through tsx (Node 20 has no type stripping), then runs the CLI.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../cli/index.ts");
process.exitCode = await runCli(process.argv.slice(2));
