import { disposable, type Disposable } from "../core/index.ts";
import ivm, { type IsolatedVM } from "./isolated-vm/index.ts";

/** An isolate from the platform snapshot with a context, in which no tenant code ever ran. */
export interface BlankIsolate {
  isolate: IsolatedVM.Isolate;
  context: IsolatedVM.Context;
}

/**
 * Blank isolates made ahead of time, per heap size asked for: a cold start takes one and
 * skips the ~4 ms of creating them (~10 ms on a machine where page faults are dear);
 * another is made once the cold start is over. Not sooner: the boot awaits its program's
 * run off the Node thread, and a blank isolate made on the Node thread meanwhile would
 * hold up that very cold start (measured: 11 ms p50 instead of 2–3 ms).
 */
export interface SpareIsolates extends Disposable {
  /** A blank isolate of this heap size, if one is ready; notes the size so `refill` makes them. */
  take(memoryLimitMb: number): BlankIsolate | undefined;
  /** Makes the missing ones from `snapshot`, one per turn of the event loop (after a cold start). */
  refill(snapshot: IsolatedVM.ExternalCopy<ArrayBuffer>): void;
  /** How many are ready. */
  readonly ready: number;
  /** Disposes the ready ones and makes no more. */
  dispose(): Promise<void>;
}

const SPARES_PER_HEAP_SIZE = 2;

export function createSpareIsolates(): SpareIsolates {
  const bySize = new Map<number, BlankIsolate[]>();
  let refilling = false;
  let disposed = false;

  function refill(snapshot: IsolatedVM.ExternalCopy<ArrayBuffer>): void {
    if (refilling || disposed) return;
    refilling = true;
    setImmediate(() => {
      refilling = false;
      if (disposed) return;
      for (const [memoryLimitMb, ready] of bySize) {
        if (ready.length >= SPARES_PER_HEAP_SIZE) continue;
        const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb, snapshot });
        ready.push({ isolate, context: isolate.createContextSync() });
        refill(snapshot); // one per turn: never more than ~4 ms of the event loop at a time
        return;
      }
    });
  }

  return disposable({
    take(memoryLimitMb) {
      if (disposed) return undefined;
      let ready = bySize.get(memoryLimitMb);
      if (!ready) bySize.set(memoryLimitMb, (ready = []));
      let spare = ready.pop();
      while (spare && spare.isolate.isDisposed) spare = ready.pop();
      return spare;
    },
    refill,
    get ready() {
      let count = 0;
      for (const ready of bySize.values()) count += ready.length;
      return count;
    },
    async dispose() {
      disposed = true;
      for (const ready of bySize.values()) for (const { isolate } of ready.splice(0)) isolate.dispose();
    },
  });
}
