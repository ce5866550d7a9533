import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { openDataDir } from "../store/index.ts";

/**
 * `tessera functions serve` of the standalone `@tessera/cli`. The package carries no isolates (a
 * native addon built for one Node.js line), so it runs the command through the Tessera server
 * running on `TESSERA_DATA_DIR`, which carries them: its own CLI (`server.json`'s launcher, the
 * Node.js that server runs on and its `bin/tessera.js`) in a child process, with this command's
 * arguments, working directory and terminal. That is how `supabase functions serve` runs in the
 * stack `supabase start` made, and the sandbox organization `serve` uses by default is made by that
 * same server anyway. Resolves with the child's exit code; signals reach the child.
 */
export function serveThroughLocalServer(
  argv: string[],
  dataDir: string,
  env: Record<string, string | undefined>,
): Promise<number> {
  const path = resolve(dataDir);
  const running = openDataDir(path).runningServer();
  if (!running) {
    return refuse(
      `tessera functions serve runs a folder in a local Tessera server's isolates, and none runs on the data dir ${path}: ` +
        "start one (npm start where the server is installed) and set TESSERA_DATA_DIR to its data dir",
    );
  }
  const { launcher } = running;
  if (!launcher || !existsSync(launcher.node) || !existsSync(launcher.bin)) {
    return refuse(
      `the Tessera server at ${running.url} (data dir ${path}) does not say how to run its CLI: restart it with this version`,
    );
  }
  const child = spawn(launcher.node, ["--no-node-snapshot", launcher.bin, ...argv], {
    stdio: "inherit",
    env: { ...env, TESSERA_DATA_DIR: path },
  });
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  return new Promise((done) => {
    const finish = (code: number) => {
      for (const signal of signals) process.off(signal, forward);
      done(code);
    };
    child.once("error", (error) => {
      console.error(`error: cannot run ${launcher.bin}: ${error.message}`);
      finish(1);
    });
    // Killed by a signal: the shell's convention, 128 + its number.
    child.once("exit", (code, signal) => finish(code ?? (signal === "SIGINT" ? 130 : 143)));
  });
}

function refuse(message: string): Promise<number> {
  console.error(`error: ${message}`);
  return Promise.resolve(1);
}
