import { hostname } from "node:os";
import {
  createWorkLoop,
  disposable,
  randomBase62,
  withDeadline,
  type Clock,
  type Config,
  type Disposable,
  type Logger,
  type SecretBox,
} from "../core/index.ts";
import { eventsById } from "../engines/index.ts";
import { nextClaimable, type Store } from "../store/index.ts";
import {
  claimDueDeliveries,
  DELIVERY_QUEUE,
  NOTIFY_CHANNEL,
  releaseDeliveries,
  type Claimed,
  type DeliveryRow,
} from "./delivery-queries.ts";
import { createClaimAhead } from "./claim-ahead.ts";
import { createDeliverer } from "./deliver.ts";
import { createSender } from "./send.ts";

/**
 * The delivery worker: claim due deliveries in batches, ahead of the sends (claim-ahead.ts),
 * send them concurrently (bounded), record them in batches while the next sends go out. It
 * wakes on NOTIFY `tessera_webhooks` (sent by the fan-out trigger at commit) and polls as the
 * fallback, as graphile-worker does.
 * Any number of workers, in any number of processes, share the queue.
 */

/** How often an idle worker looks for due work without a notification. */
export const POLL_MS = 1_000;
/** A lease outlives the send's deadline by this much, time enough to record the attempt. */
export const LEASE_MARGIN_MS = 5_000;
/** Attempts sent but not yet recorded, per send slot, before sends wait for the store. */
const RECORDING_PER_SLOT = 4;
/**
 * Deliveries claimed ahead, per send slot. A claim (a committed UPDATE) took 7–12 ms on the
 * benchmark's busy 2-core machine, and claims of half the slots bounded one worker to the rate
 * of those claims (bench/HISTORY.md, 2026-11-28): bigger claims, made while sends run, lift it.
 */
const CLAIMED_AHEAD_PER_SLOT = 4;

/** A delivery claimed, with what sending it needs. */
interface ClaimedDelivery {
  claimed: Claimed;
  delivery: DeliveryRow;
  events: Awaited<ReturnType<typeof eventsById>>;
}

export interface WebhookWorkerOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  config: Pick<
    Config,
    "webhookTimeoutMs" | "webhookDisableAfterDays" | "webhookConcurrency" | "allowPrivateTargets"
  >;
  box: SecretBox;
  /** Sends in flight at most (default: config.webhookConcurrency). */
  concurrency?: number;
  random?: () => number;
  pollMs?: number;
}

export interface WebhookWorker extends Disposable {
  /** Starts the loop in the background; resolves once it runs. */
  start(): Promise<void>;
  /** Tests: claims what is due now, sends it all, records it; resolves with how many. */
  runOnce(): Promise<number>;
}

/**
 * @example
 *   const worker = createWebhookWorker({ store, clock, log, config, box });
 *   await worker.start();
 *   // … SIGTERM:
 *   await worker.dispose(); // finishes the sends in flight, then stops
 */
export function createWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const { store, clock, config } = options;
  const workerId = `${hostname()}:${process.pid}:${randomBase62(6)}`;
  const log = options.log.child({ worker: workerId });
  const concurrency = options.concurrency ?? config.webhookConcurrency;
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;
  const sender = createSender({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateTargets: config.allowPrivateTargets,
    now: () => clock.now(),
  });
  const deliver = createDeliverer({
    store,
    clock,
    log,
    box: options.box,
    sender,
    random: options.random ?? Math.random,
    workerId,
    disableAfterDays: config.webhookDisableAfterDays,
  });

  // Attempts sent whose records are on their way: a send slot frees when the receiver has
  // answered, not when the store has, so sends do not wait on the database's round trips.
  const recording = new Set<Promise<void>>();
  const maxRecording = concurrency * RECORDING_PER_SLOT;
  const failedToRecord = (delivery: DeliveryRow) => (error: unknown) => {
    // The lease runs out and another attempt follows: at least once, never lost.
    log.error("webhook delivery failed to record", { delivery: delivery.id, error });
  };

  const sendOne = async (
    claimed: Claimed,
    delivery: DeliveryRow,
    events: Awaited<ReturnType<typeof eventsById>>,
  ) => {
    let recorded: Promise<void>;
    try {
      ({ recorded } = await deliver(
        delivery,
        claimed.endpoints.get(delivery.endpoint_id)!,
        events.get(delivery.event_id),
      ));
    } catch (error) {
      return failedToRecord(delivery)(error);
    }
    const tracked: Promise<void> = recorded
      .catch(failedToRecord(delivery))
      .finally(() => recording.delete(tracked));
    recording.add(tracked);
    // A slow store holds the sends back: past this many unrecorded attempts, a slot waits for its record.
    if (recording.size > maxRecording) await tracked;
  };

  const ahead = createClaimAhead<ClaimedDelivery>({
    async claim(limit, now) {
      // Bounded, as every store call here: a refill that never settled would hold every claim after it.
      const claimed = await withDeadline(
        claimDueDeliveries(store, { now, limit, leaseMs, workerId }),
        "claiming webhook deliveries",
      );
      if (claimed.deliveries.length === 0) return [];
      const events = await withDeadline(
        eventsById(
          store,
          claimed.deliveries.map((d) => d.event_id),
        ),
        "reading webhook events",
      );
      return claimed.deliveries.map((delivery) => ({ claimed, delivery, events }));
    },
    release: (items) =>
      withDeadline(
        releaseDeliveries(
          store,
          items.map((item) => item.delivery.id),
          workerId,
        ),
        "releasing webhook deliveries",
      ),
    ahead: concurrency * CLAIMED_AHEAD_PER_SLOT,
    // A send started by then ends within its timeout, and the lease still has time for the record.
    freshMs: LEASE_MARGIN_MS / 2,
    now: () => clock.now(),
    log,
  });

  const loop = createWorkLoop({
    name: "webhook worker",
    log,
    concurrency,
    pollMs: options.pollMs ?? POLL_MS,
    now: () => clock.now(),
    async claim(limit) {
      const items = await ahead.take(limit);
      return items.map(
        ({ claimed, delivery, events }) =>
          () =>
            sendOne(claimed, delivery, events),
      );
    },
    nextDue: () => nextClaimable(store, DELIVERY_QUEUE, clock.now()),
    ...(store.listen ? { listen: (wake) => store.listen!(NOTIFY_CHANNEL, wake) } : {}),
  });

  return disposable({
    async start() {
      loop.start();
      log.info("webhook worker started", { concurrency, lease_ms: leaseMs });
    },
    async runOnce() {
      const sent = await loop.runOnce();
      await Promise.all(recording);
      return sent;
    },
    async dispose() {
      await loop.dispose();
      await ahead.dispose();
      await Promise.all(recording);
      await sender.dispose();
    },
  });
}
