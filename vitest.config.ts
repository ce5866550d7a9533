import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Fails a file that leaves an app, a server, a socket or a timer open (test/setup.ts).
    setupFiles: ["test/setup.ts"],
    pool: "forks",
    // Two cores here and in CI: two workers keep PGlite instances from starving each other.
    // isolated-vm on Node >= 20 needs the process started without Node's own startup snapshot.
    poolOptions: { forks: { maxForks: 2, minForks: 1, execArgv: ["--no-node-snapshot"] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
