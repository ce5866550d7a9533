import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Process start for the test workers: the V8 flags the server sets (sandbox/v8-flags.ts); then
    // each file fails when it leaves an app, a server or a socket open (test/setup.ts).
    setupFiles: ["test/helpers/setup.ts", "test/setup.ts"],
    pool: "forks",
    // Two cores here and in CI: two workers keep PGlite instances from starving each other.
    // isolated-vm on Node >= 20 needs the process started without Node's own startup snapshot.
    poolOptions: { forks: { maxForks: 2, minForks: 1, execArgv: ["--no-node-snapshot"] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
