/**
 * `Temporal` for a function whose code names it (polyfills.ts picks it, bundles it ahead of the
 * function's code): FullCalendar's `temporal-polyfill`, its `full` build (every calendar V8's ICU
 * knows, as a native Temporal has). Runs inside the isolate, as plain JavaScript once bundled.
 */
import { installImplementation } from "temporal-polyfill/full/shim";

/**
 * Where V8 has no `Temporal` of its own, installs the polyfill's as a browser has it:
 * `globalThis.Temporal`, `Date.prototype.toTemporalInstant` and an `Intl.DateTimeFormat` that also
 * formats Temporal objects, each non-enumerable, writable and configurable. None of Node 20, 22 and 24
 * has one without a flag; a server started with `--harmony-temporal` keeps V8's unfinished one.
 */
export function installTemporal(): void {
  if ("Temporal" in globalThis) return;
  installImplementation();
  nameGetters((globalThis as unknown as { Temporal: object }).Temporal);
}

/**
 * The polyfill names every getter `get`; the spec's (and V8's) is `get year`, `get epochNanoseconds`:
 * the only way its surface differs from Deno's (compared property by property, 2026-11-28). Each
 * getter is its own function, so naming one names no other.
 */
function nameGetters(temporal: object): void {
  // Temporal's members are not enumerable: Object.values would give none.
  for (const { value: member } of Object.values(Object.getOwnPropertyDescriptors(temporal))) {
    if (typeof member !== "function") continue; // Temporal.Now
    const { prototype } = member as { prototype: object };
    const accessors = Object.getOwnPropertyDescriptors(prototype) as Record<string, { get?: object }>;
    for (const [key, { get }] of Object.entries(accessors)) {
      if (get && (get as { name: string }).name !== `get ${key}`)
        Object.defineProperty(get, "name", { value: `get ${key}` });
    }
  }
}
