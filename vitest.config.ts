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
    // A worker keeps its modules from one test file to the next instead of loading the app's whole
    // module graph again for each (~1.8 s a file): the suite took 546 s instead of 800 s with
    // PostgreSQL and Redis. Files share no state through modules: no test mocks a module or stubs a
    // global, every app and server is made and disposed by its file (test/setup.ts checks it).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
