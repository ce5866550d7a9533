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
export const PROCESS_V8_FLAGS: readonly string[] = Object.freeze([
  "--max-semi-space-size=16",
  ...transferFlag(process.versions.v8),
]);

/**
 * `ArrayBuffer.prototype.transfer`, `transferToFixedLength` and `detached` (ES2024), for V8 11.3
 * (Node 20), where they are finished but behind this flag: V8 11.4 shipped them as they are, and
 * Node 22 and 24 have them without it. Without them nothing inside an isolate can detach a buffer, so
 * `structuredClone(x, { transfer })` and a BYOB read would copy where Deno and the standards move
 * (WPT: 18 streams and 2 structured clone subtests). For any other V8, nothing.
 */
export function transferFlag(v8Version: string): string[] {
  const [major = 0, minor = 0] = v8Version.split(".").map(Number);
  return major === 11 && minor === 3 ? ["--harmony-rab-gsab-transfer"] : [];
}

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
