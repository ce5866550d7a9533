import { disposable, type Disposable } from "./disposable.ts";
import { AppError } from "./errors.ts";
import type { Logger } from "./log.ts";

/**
 * The loop of a queue worker over the store, as graphile-worker runs one: claim a batch of
 * due items, run them concurrently (bounded), claim again once half the slots are free;
 * when nothing is due, sleep until the next item falls due, a notification arrives or the
 * poll interval passes. A failing cycle (a database restart) backs off and tries again.
 * The webhook worker and the function-run worker are this loop with their own claims.
 */

/**
 * Store calls of a worker that must not wait for ever. postgres.js 3.4 can leave a
 * query pending for good when its connection dies mid-transaction (a database
 * restart: porsager/postgres#1186, #1215); the worker then gives up on that call and
 * goes on, and the lease hands any item it held to the next claim.
 */
export const STORE_DEADLINE_MS = 10_000;
const MAX_BACKOFF_MS = 5_000;

/** `promise`, or a rejection naming `what` once `ms` pass without it settling. */
export function withDeadline<T>(promise: Promise<T>, what: string, ms = STORE_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer from the store within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export interface WorkLoopOptions {
  /** What the logs call it: "webhook worker", "function run worker". */
  name: string;
  log: Logger;
  /** Items run at once at most. */
  concurrency: number;
  /** How often an idle loop looks for due work without a notification. */
  pollMs: number;
  now(): Date;
  /** Claims up to `limit` due items; one task per item, each settling when its item is done and recorded. */
  claim(limit: number): Promise<Array<() => Promise<void>>>;
  /** When the earliest pending item falls due (null: none pending). */
  nextDue(): Promise<Date | null>;
  /** Subscribes `wake` to notifications of new work; resolves with the unsubscribe. */
  listen?: (wake: () => void) => Promise<() => Promise<void>>;
}

export interface WorkLoop extends Disposable {
  /** Starts the loop in the background. */
  start(): void;
  /** Tests: claims what is due now, runs it all; resolves with how many. */
  runOnce(): Promise<number>;
  /** Stops claiming, lets the items in flight finish, then unsubscribes. */
  dispose(): Promise<void>;
}

export function createWorkLoop(options: WorkLoopOptions): WorkLoop {
  const { log, concurrency, pollMs, name } = options;
  const inFlight = new Set<Promise<void>>();
  const wake = createWaker();
  let state: "new" | "running" | "stopping" | "disposed" = "new";
  let loop: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  const claimAndStart = async (limit: number): Promise<Promise<void>[]> => {
    const tasks = await withDeadline(options.claim(limit), `${name}: claiming work`);
    return tasks.map((task) => track(task()));
  };

  const track = (task: Promise<void>) => {
    inFlight.add(task);
    void task.finally(() => {
      inFlight.delete(task);
      // Claim again once half the slots are free: batches, not one row per claim.
      if (inFlight.size <= concurrency / 2) wake.signal();
    });
    return task;
  };

  const ensureListening = async () => {
    if (unlisten || !options.listen) return;
    unlisten = await withDeadline(
      options.listen(() => wake.signal()),
      `${name}: listening for work`,
    );
  };

  const idleMs = async () => {
    const due = await withDeadline(options.nextDue(), `${name}: finding the next due item`);
    if (!due) return pollMs;
    return Math.min(pollMs, Math.max(0, due.getTime() - options.now().getTime()));
  };

  const run = async () => {
    let failures = 0;
    while (state === "running") {
      try {
        await ensureListening();
        const free = concurrency - inFlight.size;
        const started = free > 0 ? await claimAndStart(free) : [];
        failures = 0;
        if (free > 0 && started.length === free) continue;
        await wake.sleep(free > 0 ? await idleMs() : pollMs);
      } catch (error) {
        // A database restart: log, back off, try again; LISTEN is re-established too.
        failures++;
        log.warn(`${name} cycle failed; retrying`, { error, failures });
        await wake.sleep(Math.min(MAX_BACKOFF_MS, 100 * 2 ** failures));
      }
    }
  };

  return disposable({
    start() {
      if (state !== "new") throw new AppError("disposed", `${name} already started or disposed`);
      state = "running";
      loop = run();
    },
    async runOnce() {
      if (state === "disposed") throw new AppError("disposed", `${name} is disposed`);
      const started = await claimAndStart(concurrency);
      await Promise.all(started);
      return started.length;
    },
    async dispose() {
      if (state === "disposed") return;
      state = "stopping";
      wake.signal();
      await loop;
      await Promise.all(inFlight);
      state = "disposed";
      await unlisten?.().catch(() => undefined);
    },
  });
}

/** A sleep that a signal cuts short; a signal while awake makes the next sleep return at once. */
function createWaker() {
  let pending = false;
  let cut: (() => void) | undefined;
  return {
    signal() {
      pending = true;
      cut?.();
    },
    sleep(ms: number): Promise<void> {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          cut = undefined;
          pending = false;
          resolve();
        }
        cut = done;
      });
    },
  };
}
