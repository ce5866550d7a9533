/**
 * The guest half of the bridge. The host hands `init` one function (`HostFn`, an
 * isolated-vm Callback) which is captured here and never put on the global. Every
 * entry into the guest comes through `dispatch` (index.ts) and names its request
 * slot; the slot stays "current" for the microtask checkpoint that follows the
 * entry, so continuations it triggers are attributed to that request.
 */

/** op, request slot, then op-specific arguments; see sandbox/protocol.ts. */
export type HostFn = (
  op: string,
  slot: number,
  a?: unknown,
  b?: unknown,
  c?: unknown,
  d?: unknown,
  e?: unknown,
) => unknown;

let host: HostFn | undefined;

export function captureHost(fn: HostFn): void {
  if (host) throw new Error("the bridge is already initialised");
  host = fn;
}

/** Per-request state the platform keeps in the guest. */
export interface RequestSlot {
  readonly slot: number;
  responded: boolean;
  waitUntil: number;
  ctx: unknown;
}

/**
 * The requests in flight, by slot, with one entry that stays for good under a key the host never
 * gives a request (`KEEP`). V8 shrinks a Map to a new table when its entries fall below a quarter
 * of its size, and an isolate usually has one request at a time: from one entry to none, every
 * request's end built a new table (`Runtime_MapShrink`, 1.1 % of a trivial invocation's main
 * thread under perf; bench/HISTORY.md).
 */
const KEEP = -1;
const slots = new Map<number, RequestSlot | undefined>([[KEEP, undefined]]);
let current: RequestSlot | undefined;

export const requests = {
  add(state: RequestSlot): void {
    slots.set(state.slot, state);
  },
  get: (slot: number): RequestSlot | undefined => slots.get(slot),
  delete(slot: number): void {
    slots.delete(slot);
    if (current?.slot === slot) current = undefined;
  },
  /** Sets the request that an entry (and its microtasks) belongs to. */
  enter(slot: number): RequestSlot | undefined {
    current = slots.get(slot);
    return current;
  },
  get current(): RequestSlot | undefined {
    return current;
  },
};

/** The current request, or the error Workers give for I/O outside a request. */
export function currentRequest(what: string): RequestSlot {
  if (!current) {
    throw new Error(`${what} is only possible while handling a request (not at the top level of the module)`);
  }
  return current;
}

export function hostSync(
  op: string,
  slot: number,
  a?: unknown,
  b?: unknown,
  c?: unknown,
  d?: unknown,
  e?: unknown,
): unknown {
  if (!host) throw new Error("the platform is not initialised");
  // Called directly, never through .call/.apply: a guest could patch those and see `host`.
  return host(op, slot, a, b, c, d, e);
}

interface PendingCall {
  slot: number;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}
const calls = new Map<number, PendingCall>();
let nextCallId = 1;

/**
 * While the program's top level runs (from `__tessera_boot` to the "boot" entry), the host calls
 * that need no request may go out as the top level's own (slot 0), so a top level can await them as
 * it can under Deno: `crypto.subtle` (an imported key, say). I/O and timers stay a request's.
 */
const BOOT_SLOT = 0;
const BOOT_CALLS: ReadonlySet<string> = new Set(["crypto"]);
let booting = false;

export function setBooting(value: boolean): void {
  booting = value;
}

/** The slot a top level's own output goes to while it runs (its logs), or undefined after. */
export function bootSlot(): number | undefined {
  return booting ? BOOT_SLOT : undefined;
}

/**
 * Starts an asynchronous host operation for the current request (or the top level's, see
 * `BOOT_CALLS`); its result comes back later through `settle`, as its own entry.
 */
export function hostCall(what: string, kind: string, payload: unknown): Promise<unknown> {
  const slot = current?.slot ?? (booting && BOOT_CALLS.has(kind) ? BOOT_SLOT : currentRequest(what).slot);
  const id = nextCallId++;
  return new Promise((resolve, reject) => {
    calls.set(id, { slot, resolve, reject });
    try {
      hostSync("call", slot, id, kind, payload);
    } catch (error) {
      calls.delete(id);
      reject(error);
    }
  });
}

/** A host error arrives as {name, message}; fetch refusals are TypeErrors (Fetch spec). */
export function settle(id: number, ok: boolean, value: unknown): void {
  const call = calls.get(id);
  if (!call) return;
  calls.delete(id);
  if (ok) call.resolve(value);
  else {
    const { name, message } = (value ?? {}) as { name?: string; message?: string };
    const error = name === "TypeError" ? new TypeError(message) : new Error(message);
    if (name && name !== "TypeError" && name !== "Error") error.name = name;
    call.reject(error);
  }
}

/** Forgets the calls of a request that ended: the host drops their results. */
export function dropCalls(slot: number): void {
  for (const [id, call] of calls) if (call.slot === slot) calls.delete(id);
}
