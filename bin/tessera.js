#!/usr/bin/env -S node --no-node-snapshot
// Loads the TypeScript sources through tsx (Node 20 has no type stripping), then runs the CLI.
// isolated-vm (edge functions) needs V8 started with --no-node-snapshot: without it, the
// command runs again in a child Node that has it, passing signals and the exit code through.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

if (!process.execArgv.includes("--no-node-snapshot") && !process.env.TESSERA_NO_REEXEC) {
  const child = spawn(
    process.execPath,
    ["--no-node-snapshot", ...process.execArgv, ...process.argv.slice(1)],
    {
      stdio: "inherit",
      env: { ...process.env, TESSERA_NO_REEXEC: "1" },
    },
  );
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
} else {
  // Tessera's own tsconfig, wherever the command runs: tsx would otherwise read the one in the
  // working directory, and a function project's `paths` or `verbatimModuleSyntax` would change how
  // Tessera's own sources resolve and compile.
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  // Process start: the V8 flags function isolates want are set here, once, before any is made.
  const { setProcessV8Flags } = await import("../sandbox/v8-flags.ts");
  setProcessV8Flags();
  const { runCli } = await import("../cli/index.ts");
  process.exitCode = await runCli(process.argv.slice(2));
}
