import v8 from "node:v8";

/**
 * V8 flags the sandbox's isolates want, for the whole process.
 *
 * isolated-vm caps an isolate's young generation by its heap limit: 2 MB for the default
 * 128 MB, so code that allocates (every Request, URL and Response does) scavenges
 * constantly; measured 5× slower than the same code in Node. 16 MB semi-spaces are Node's
 * own default on 64-bit; a semi-space grows only while a function allocates, so idle
 * isolates stay small (bench/isolate-pool.ts).
 */
export const PROCESS_V8_FLAGS: readonly string[] = Object.freeze(["--max-semi-space-size=16"]);

/**
 * Sets `PROCESS_V8_FLAGS`. Call it once at process start, before the first isolate is made
 * (isolates read the flags when they are created): `bin/tessera.js` does for the CLI and the
 * server, `bench/run.ts` for benchmarks, `test/helpers/setup.ts` for vitest's workers.
 * Isolates made without it work, but allocate 5× slower. Setting them again changes nothing.
 *
 * @example
 *   setProcessV8Flags();
 *   const sandbox = createSandbox({ maxIsolates: 1000, memoryBudgetMb: 3072, idleTimeoutMs: 300_000 });
 */
export function setProcessV8Flags(): void {
  for (const flag of PROCESS_V8_FLAGS) v8.setFlagsFromString(flag);
}
