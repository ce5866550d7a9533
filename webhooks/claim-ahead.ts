import type { Logger } from "../core/index.ts";
import type { DeliveryRow } from "./delivery-queries.ts";

/**
 * Claims ahead of the sends. A claim is a committed statement and then reads, a few ms; a
 * worker that claims only once half its send slots are free leaves the slots idle for that
 * long every time, and a fast receiver is then waiting on the database. So the worker keeps up
 * to `ahead` deliveries claimed (leased, not yet sent) and refills them in the background
 * while its sends run: the work loop's next claim is answered at once.
 *
 * A delivery kept here is sent only while its lease still covers a whole send and its record
 * (`freshMs` after its claim); one kept longer, and all kept at `dispose()`, are handed back
 * (their leases released, no attempt made), so another worker can take them at once.
 */

export interface ClaimAheadOptions<T> {
  /** Claims up to `limit` due items at `now`: leased until `now + lease`. */
  claim(limit: number, now: Date): Promise<T[]>;
  /** Hands items back: releases this worker's leases without an attempt. */
  release(items: T[]): Promise<void>;
  /** Items kept claimed ahead at most. */
  ahead: number;
  /** How long after its claim an item may still be sent. */
  freshMs: number;
  now(): Date;
  log: Logger;
}

export interface ClaimAhead<T> {
  /** Up to `limit` items: the ones claimed ahead first, then a claim of the rest. */
  take(limit: number): Promise<T[]>;
  /** Waits for a refill in flight, then hands back what is kept. */
  dispose(): Promise<void>;
}

/** @example const ahead = createClaimAhead({ claim, release, ahead: 64, freshMs: 2_500, now, log }); */
export function createClaimAhead<T extends { delivery: Pick<DeliveryRow, "id"> }>(
  options: ClaimAheadOptions<T>,
): ClaimAhead<T> {
  let kept: Array<{ item: T; claimedAt: number }> = [];
  let refilling: Promise<void> | undefined;
  // The last claim found fewer than it asked for: nothing more is due, no refill until one fills.
  let drained = false;
  let disposed = false;

  const claim = async (limit: number) => {
    const now = options.now();
    const items = await options.claim(limit, now);
    drained = items.length < limit;
    for (const item of items) kept.push({ item, claimedAt: now.getTime() });
  };
  const refill = (limit: number) => (refilling ??= claim(limit).finally(() => (refilling = undefined)));

  const handBack = (items: T[]) => {
    if (items.length === 0) return Promise.resolve();
    return options.release(items).catch((error: unknown) => {
      // Their leases run out instead, and the next claim takes them.
      options.log.warn("releasing webhook deliveries claimed ahead failed", { error, count: items.length });
    });
  };

  // Handed back before the next claim, which may then take them again with a fresh lease.
  const dropStale = () => {
    const oldest = options.now().getTime() - options.freshMs;
    const stale = kept.filter((entry) => entry.claimedAt < oldest);
    if (stale.length === 0) return;
    kept = kept.filter((entry) => entry.claimedAt >= oldest);
    return handBack(stale.map((entry) => entry.item));
  };

  return {
    async take(limit) {
      await dropStale();
      if (kept.length < limit) {
        await refilling;
        if (kept.length < limit) await refill(limit - kept.length + options.ahead);
      }
      const taken = kept.splice(0, limit).map((entry) => entry.item);
      // Refills come in batches too: once half of what is kept ahead has gone.
      if (!drained && !disposed && kept.length <= options.ahead / 2) {
        refill(options.ahead - kept.length).catch((error: unknown) => {
          // The next take claims in the foreground and meets the error there.
          options.log.warn("claiming webhook deliveries ahead failed", { error });
        });
      }
      return taken;
    },
    async dispose() {
      disposed = true;
      await refilling?.catch(() => undefined);
      const rest = kept.map((entry) => entry.item);
      kept = [];
      await handBack(rest);
    },
  };
}
