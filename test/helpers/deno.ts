import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The `deno` binary of the npm package `deno` (a devDependency). */
export const DENO_BIN = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));

/** Why Deno cannot run here, or null when `deno --version` works. */
export function denoMissing(): string | null {
  if (!existsSync(DENO_BIN)) return `no deno binary at ${DENO_BIN} (npm ci installs the deno package)`;
  const probe = spawnSync(DENO_BIN, ["--version"], { encoding: "utf8" });
  return probe.status === 0 ? null : `${DENO_BIN} --version failed: ${probe.error?.message ?? probe.stderr}`;
}

/**
 * Environment of every Deno process in tests: its own DENO_DIR, no update check,
 * no colours, and an npm registry that refuses connections, so anything that would
 * reach the network fails at once instead of passing by luck: npm: imports must
 * come from the local node_modules (`"nodeModulesDir": "manual"`).
 */
export function denoEnv(denoDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DENO_DIR: denoDir,
    DENO_NO_UPDATE_CHECK: "1",
    DENO_NO_PROMPT: "1",
    NO_COLOR: "1",
    NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
    ...extra,
  };
}

export interface DenoServer {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a Deno program that serves HTTP (through `Deno.serve`, `deno serve`, or a
 * host calling it) on a free loopback port, chosen by Deno through
 * `DENO_SERVE_ADDRESS=tcp:127.0.0.1:0`, and waits for its `Listening on` line.
 */
export function startDenoServer(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<DenoServer> {
  const child = spawn(DENO_BIN, args, {
    cwd: options.cwd,
    env: { ...options.env, DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`deno ${args.join(" ")} did not start:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1]!, output: () => output, stop: () => stop(child, exited) });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`deno ${args.join(" ")} exited:\n${output}`));
    });
  });
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Runs a Deno command to completion. */
export function runDeno(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(DENO_BIN, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });
}
