import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * A port on 127.0.0.1 that is free now, for a process started later to listen on. It is taken
 * below the kernel's ephemeral range (`ip_local_port_range`, 32768–60999 on Linux): a port from
 * `listen(0)` is one the kernel may hand the next outbound connection or `listen(0)` in between,
 * and a suite's parallel tests make many (CI once saw `npm start` fail with EADDRINUSE that way).
 * Below the range, only a process that asks for this very port can take it first.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let tries = 0; tries < 50; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between 10000 and ${low}`);
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    // A range that starts at 20000 or lower leaves little room below it: 10000–29999 are used then,
    // some of them inside the range, and no worse than listen(0)'s.
    return Number.isInteger(low) && low > 20_000 ? low : 30_000;
  } catch {
    return 32_768; // Not Linux: its default range starts higher still (macOS 49152).
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
