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
import { claimDueDeliveries, DELIVERY_QUEUE, NOTIFY_CHANNEL, type Claimed } from "./delivery-queries.ts";
import { createDeliverer } from "./deliver.ts";
import { createSender } from "./send.ts";

/**
 * The delivery worker: claim a batch of due deliveries, send them concurrently
 * (bounded), record each. It wakes on NOTIFY `tessera_webhooks` (sent by the
 * fan-out trigger at commit) and polls as the fallback, as graphile-worker does.
 * Any number of workers, in any number of processes, share the queue.
 */

/** How often an idle worker looks for due work without a notification. */
export const POLL_MS = 1_000;
/** A lease outlives the send's deadline by this much, time enough to record the attempt. */
export const LEASE_MARGIN_MS = 5_000;

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

  const sendOne = async (
    claimed: Claimed,
    delivery: Claimed["deliveries"][number],
    events: Awaited<ReturnType<typeof eventsById>>,
  ) => {
    try {
      await deliver(delivery, claimed.endpoints.get(delivery.endpoint_id)!, events.get(delivery.event_id));
    } catch (error) {
      // The lease runs out and another attempt follows: at least once, never lost.
      log.error("webhook delivery failed to record", { delivery: delivery.id, error });
    }
  };

  const loop = createWorkLoop({
    name: "webhook worker",
    log,
    concurrency,
    pollMs: options.pollMs ?? POLL_MS,
    now: () => clock.now(),
    async claim(limit) {
      const claimed = await claimDueDeliveries(store, { now: clock.now(), limit, leaseMs, workerId });
      if (claimed.deliveries.length === 0) return [];
      const events = await withDeadline(
        eventsById(
          store,
          claimed.deliveries.map((d) => d.event_id),
        ),
        "reading webhook events",
      );
      return claimed.deliveries.map((delivery) => () => sendOne(claimed, delivery, events));
    },
    nextDue: () => nextClaimable(store, DELIVERY_QUEUE, clock.now()),
    ...(store.listen ? { listen: (wake) => store.listen!(NOTIFY_CHANNEL, wake) } : {}),
  });

  return disposable({
    async start() {
      loop.start();
      log.info("webhook worker started", { concurrency, lease_ms: leaseMs });
    },
    runOnce: () => loop.runOnce(),
    async dispose() {
      await loop.dispose();
      await sender.dispose();
    },
  });
}
