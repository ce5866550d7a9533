import { disposable, type Disposable } from "../core/index.ts";
import ivm, { type IsolatedVM } from "./isolated-vm/index.ts";

/**
 * A sandbox's watchdog over synchronous guest entries: one loop, in a small isolate
 * of its own running off the Node thread, that disposes the isolate of an entry still
 * running past its deadline. It replaces isolated-vm's per-call `timeout`, which arms a
 * timer on a shared timer thread for every entry: that thread wakes once per entry
 * (~20 µs of CPU and a context switch per request on a 2-core machine; bench/README.md,
 * function-invoke). Here an entry costs a few atomic writes to shared memory, and the
 * loop wakes every POLL_MS whatever the request rate, like workerd's watchdog thread.
 *
 * Entries run on the Node thread one at a time, so one slot in shared memory describes
 * the entry in progress: its token, its isolate and its deadline (wall clock, ms: the
 * watchdog's isolate has no monotonic clock, so a step of the system clock during an
 * entry moves its deadline; isolated-vm's own timer is monotonic).
 * The loop claims an overdue entry by swapping its token for CLAIMED before it disposes
 * the isolate, and the host swaps the token back for 0 when the entry returns, so
 * exactly one of them decides whether the entry was stopped.
 *
 * Each sandbox has its own (entries run on the one Node thread, so one loop serves all of
 * a sandbox's isolates; two sandboxes in a process have two loops, which only costs the
 * second one's polling while both are busy).
 *
 * The loop holds a handle to each isolate it may stop; a new isolate is handed over by
 * asking the loop to return and starting it again (entries in between, and any while
 * the loop is not running, fall back to isolated-vm's `timeout`). The loop returns on
 * its own after IDLE_MS without entries, so an idle process keeps no work pending and
 * can exit.
 */
export interface Watchdog extends Disposable {
  /** Hands an isolate to the watchdog; returns the id its entries are armed with (0 once disposed: never covered). */
  register(isolate: IsolatedVM.Isolate): number;
  /** The isolate is gone: the watchdog lets go of its handle. */
  forget(id: number): void;
  /**
   * Marks the start of an entry into isolate `id` that may run `wallMs`. False when the
   * watchdog cannot cover it (not running, or the isolate not handed over yet): the
   * caller passes isolated-vm's `timeout` instead.
   */
  arm(id: number, wallMs: number): boolean;
  /** Marks the end of the armed entry; true when the watchdog stopped it (its isolate is disposed or about to be). */
  disarm(): boolean;
  /** Lets the loop return; the next entry starts it again. */
  stop(): void;
  /**
   * Stops the loop for good and frees its isolate (the sandbox's dispose): resolves once the
   * loop returned, so nothing of it keeps the process alive. Later entries get isolated-vm's timeout.
   */
  dispose(): Promise<void>;
  /** Entries armed, entries left to isolated-vm's timeout, and entries stopped, since the start. */
  stats(): WatchdogStats;
}

export interface WatchdogStats {
  armed: number;
  fallbacks: number;
  stopped: number;
}

const POLL_MS = 5;
const IDLE_MS = 1_000;

// Int32 words of the shared memory, then the deadline as a Float64.
const STATE = 0;
const CONTROL = 1;
const CURRENT = 2;
const ISOLATE = 3;
const LATEST = 4;
const SLEEP = 5;
const DEADLINE_BYTE = 32;

const RUNNING = 1;
const STOPPING = 2;
const CLAIMED = -1;
const RETURN = 1;
const MAX_TOKEN = 0x7fffffff;

/**
 * The loop, in the watchdog's own isolate (plain JavaScript: no host object but the
 * shared memory and the isolate handles it is given). STOPPING is stored before the
 * loop checks for an entry in progress, and the host stores its token before it checks
 * STATE: whichever comes second sees the other, so no entry goes unwatched.
 */
const PROGRAM = `
const handles = new Map();
globalThis.register = (id, isolate) => void handles.set(id, isolate);
globalThis.forget = (id) => void handles.delete(id);
globalThis.watch = () => {
  const words = new Int32Array(shared, 0, 8);
  const deadline = new Float64Array(shared, ${DEADLINE_BYTE}, 1);
  let latest = Atomics.load(words, ${LATEST});
  let quietSince = Date.now();
  for (;;) {
    const token = Atomics.load(words, ${CURRENT});
    if (token > 0) {
      const id = words[${ISOLATE}];
      const due = deadline[0];
      if (Date.now() >= due && Atomics.compareExchange(words, ${CURRENT}, token, ${CLAIMED}) === token) {
        try { handles.get(id)?.dispose(); } catch {}
      }
    }
    const now = Date.now();
    const seen = Atomics.load(words, ${LATEST});
    if (seen !== latest) {
      latest = seen;
      quietSince = now;
    }
    const control = Atomics.load(words, ${CONTROL});
    if (control !== 0 || now - quietSince >= ${IDLE_MS}) {
      Atomics.store(words, ${STATE}, ${STOPPING});
      if (Atomics.load(words, ${CURRENT}) <= 0) return;
    }
    // Woken early when asked to return; once asked, it sleeps on a word that stays 0.
    Atomics.wait(words, control === 0 ? ${CONTROL} : ${SLEEP}, 0, ${POLL_MS});
  }
};
`;

interface Loop {
  isolate: IsolatedVM.Isolate;
  register: IsolatedVM.Reference<(id: number, isolate: IsolatedVM.Isolate) => void>;
  forget: IsolatedVM.Reference<(id: number) => void>;
  watch: IsolatedVM.Reference<() => void>;
}

export function createWatchdog(): Watchdog {
  const shared = new SharedArrayBuffer(64);
  const words = new Int32Array(shared, 0, 8);
  const deadline = new Float64Array(shared, DEADLINE_BYTE, 1);
  /** Every isolate registered and not forgotten; `handedOver` are those the current loop isolate holds. */
  const live = new Map<number, IsolatedVM.Isolate>();
  const handedOver = new Set<number>();
  const forgotten = new Set<number>();
  let loop: Loop | undefined;
  let running = false;
  let stopping = false;
  let disposed = false;
  let onReturned: (() => void) | undefined;
  let nextId = 1;
  let token = 0;
  const stats: WatchdogStats = { armed: 0, fallbacks: 0, stopped: 0 };

  function boot(): Loop {
    const isolate = new ivm.Isolate({ memoryLimit: 8 });
    const context = isolate.createContextSync();
    context.global.setSync("shared", new ivm.ExternalCopy(shared).copyInto());
    context.evalSync(PROGRAM);
    const get = <T>(name: string) =>
      context.global.getSync(name, { reference: true }) as IsolatedVM.Reference<T>;
    return { isolate, register: get("register"), forget: get("forget"), watch: get("watch") };
  }

  /** Starts the loop, first handing over what changed while it was not running. */
  function start(): void {
    if (running || disposed) return;
    try {
      if (loop?.isolate.isDisposed) {
        loop = undefined;
        handedOver.clear();
      }
      loop ??= boot();
      for (const id of forgotten) loop.forget.applySync(undefined, [id]);
      forgotten.clear();
      for (const [id, isolate] of live) {
        if (handedOver.has(id)) continue;
        loop.register.applySync(undefined, [id, isolate]);
        handedOver.add(id);
      }
    } catch {
      // No watchdog (its isolate could not be made or fed): entries keep isolated-vm's timeout.
      return;
    }
    running = true;
    stopping = false;
    Atomics.store(words, CONTROL, 0);
    Atomics.store(words, STATE, RUNNING);
    loop.watch.apply(undefined, []).then(returned, () => {
      // The loop's isolate died: a new one takes over on the next start.
      loop?.isolate.dispose();
      returned();
    });
  }

  function returned(): void {
    running = false;
    Atomics.store(words, STATE, 0);
    if (disposed) return release();
    if (!stopping && [...live.keys()].some((id) => !handedOver.has(id))) start();
  }

  /** Lets go of the loop's isolate and every handle (once disposed and the loop returned). */
  function release(): void {
    if (loop && !loop.isolate.isDisposed) loop.isolate.dispose();
    loop = undefined;
    live.clear();
    handedOver.clear();
    forgotten.clear();
    onReturned?.();
  }

  /** Asks a running loop to return (within POLL_MS, once no entry is in progress). */
  function askToReturn(): void {
    if (!running) return;
    Atomics.store(words, CONTROL, RETURN);
    Atomics.notify(words, CONTROL);
  }

  return disposable({
    register(isolate) {
      if (disposed) return 0;
      const id = nextId++;
      live.set(id, isolate);
      askToReturn();
      return id;
    },
    forget(id) {
      if (!live.delete(id)) return;
      if (handedOver.delete(id)) forgotten.add(id);
    },
    arm(id, wallMs) {
      if (!running) start();
      if (!running || !handedOver.has(id)) {
        stats.fallbacks++;
        return false;
      }
      token = token === MAX_TOKEN ? 1 : token + 1;
      words[ISOLATE] = id;
      deadline[0] = Date.now() + wallMs;
      Atomics.store(words, LATEST, token);
      Atomics.store(words, CURRENT, token);
      if (Atomics.load(words, STATE) === RUNNING) {
        stats.armed++;
        return true;
      }
      // The loop is on its way out: this entry is the timeout's.
      Atomics.store(words, CURRENT, 0);
      stats.fallbacks++;
      return false;
    },
    disarm() {
      if (Atomics.exchange(words, CURRENT, 0) !== CLAIMED) return false;
      stats.stopped++;
      return true;
    },
    stop() {
      stopping = true;
      askToReturn();
    },
    dispose() {
      if (disposed) return Promise.resolve();
      disposed = true;
      stopping = true;
      if (!running) {
        release();
        return Promise.resolve();
      }
      // No entry is in progress (entries run on this thread): the loop returns within POLL_MS.
      const done = new Promise<void>((resolve) => (onReturned = resolve));
      askToReturn();
      return done;
    },
    stats: () => ({ ...stats }),
  });
}
