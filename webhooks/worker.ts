import { hostname } from "node:os";
import {
  AppError,
  randomBase62,
  type Clock,
  type Config,
  type Disposable,
  type Logger,
  type SecretBox,
} from "../core/index.ts";
import type { Store } from "../store/index.ts";
import { claimDueDeliveries, earliestDue, eventsById, NOTIFY_CHANNEL, type Claimed } from "./claim.ts";
import { withDeadline } from "./deadline.ts";
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
const MAX_BACKOFF_MS = 5_000;

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
  const pollMs = options.pollMs ?? POLL_MS;
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
  const inFlight = new Set<Promise<void>>();
  const wake = createWaker();
  let state: "new" | "running" | "stopping" | "disposed" = "new";
  let loop: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  /** Claims up to `limit` and starts sending each; resolves once claimed. */
  const claimAndStart = async (limit: number): Promise<Promise<void>[]> => {
    const claimed = await withDeadline(
      claimDueDeliveries(store, { now: clock.now(), limit, leaseMs, workerId }),
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
    return claimed.deliveries.map((delivery) => track(sendOne(claimed, delivery, events)));
  };

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
    if (unlisten || !store.listen) return;
    unlisten = await withDeadline(
      store.listen(NOTIFY_CHANNEL, () => wake.signal()),
      "listening for webhook work",
    );
  };

  const idleMs = async () => {
    const due = await withDeadline(earliestDue(store), "finding the next due webhook delivery");
    if (!due) return pollMs;
    return Math.min(pollMs, Math.max(0, due.getTime() - clock.now().getTime()));
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
        log.warn("webhook worker cycle failed; retrying", { error, failures });
        await wake.sleep(Math.min(MAX_BACKOFF_MS, 100 * 2 ** failures));
      }
    }
  };

  return {
    async start() {
      if (state !== "new") throw new AppError("disposed", "webhook worker already started or disposed");
      state = "running";
      loop = run();
      log.info("webhook worker started", { concurrency, lease_ms: leaseMs });
    },
    async runOnce() {
      if (state === "disposed") throw new AppError("disposed", "webhook worker is disposed");
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
      sender.dispose();
    },
  };
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
