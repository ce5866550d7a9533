import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The docs walk-throughs (test/docs/pages-N.test.ts) first, then vitest's own order. Each is a few
 * lines that follow several pages, each page with a server of its own: the longest files of the
 * suite. Vitest runs the longest first when it knows durations from an earlier run, and larger files
 * first when it does not (a fresh checkout, CI): these ran last, and the worker with the longer one
 * ran on alone at the end.
 */
class DocsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const docs = (spec: TestSpecification) => /\/test\/docs\/pages-\d+\.test\.ts$/.test(spec.moduleId);
    return [...sorted.filter(docs), ...sorted.filter((spec) => !docs(spec))];
  }
}

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
    // global, every app and server is made and disposed by its file (test/setup.ts checks it). What
    // they share is read-only: the migrated PGlite image each store starts from (test/helpers/pglite-image.ts).
    isolate: false,
    sequence: { sequencer: DocsFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
