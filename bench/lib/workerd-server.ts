import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ListeningProcess } from "./processes.ts";

const WORKERD = fileURLToPath(new URL("../../node_modules/.bin/workerd", import.meta.url));

/**
 * Cloudflare's workerd serving one ES module worker on 127.0.0.1: the config
 * (`.capnp`) and the module are written to a scratch dir removed at stop. The
 * compatibility date is the installed workerd's own release date, the newest it
 * accepts. workerd prints nothing when ready, so readiness is a TCP connect.
 */
export async function startWorkerd(moduleSource: string): Promise<ListeningProcess> {
  const scratch = mkdtempSync(join(tmpdir(), "tessera-bench-workerd-"));
  const port = await freePort();
  writeFileSync(join(scratch, "worker.js"), moduleSource);
  writeFileSync(join(scratch, "config.capnp"), config(port, workerdDate()));
  const child = spawn(WORKERD, ["serve", join(scratch, "config.capnp")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, 30_000, () => child.exitCode !== null);
  } catch (error) {
    await stop();
    throw new Error(`workerd did not start: ${(error as Error).message}\n${output}`);
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop };
}

/** `workerd --version` prints `workerd YYYY-MM-DD`: the newest compatibility date it supports. */
function workerdDate(): string {
  const version = execFileSync(WORKERD, ["--version"], { encoding: "utf8" });
  const date = /\d{4}-\d{2}-\d{2}/.exec(version)?.[0];
  if (!date) throw new Error(`cannot read a date from workerd --version: ${version}`);
  return date;
}

function config(port: number, compatibilityDate: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "${compatibilityDate}",
);
`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number, gaveUp: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gaveUp()) throw new Error("exited");
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listening on ${port} after ${timeoutMs} ms`);
}
