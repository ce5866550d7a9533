import {
  tracer,
  withDeadline,
  withinSpan,
  type Clock,
  type Logger,
  type SecretBox,
  type TraceSpan,
} from "../core/index.ts";
import { recordEvents, renderEvent, type EventRow } from "../engines/index.ts";
import type { Queryable, Row, Store } from "../store/index.ts";
import { nextAttemptAt, parseRetryAfter } from "./backoff.ts";
import {
  type AttemptRecord,
  disableEndpoint,
  markEndpointFailing,
  recordAttempts,
  type DeliveryRow,
  type DisabledReason,
  type EndpointDeliveryRow,
} from "./delivery-queries.ts";
import { RetryPolicySchema } from "./endpoint-schemas.ts";
import { renderWebhookEndpoint, signingSecrets } from "./endpoints.ts";
import type { Sender, SendResult } from "./send.ts";
import { signedHeaders } from "./signing.ts";

/**
 * One attempt of one claimed delivery: render, sign, send, then record the attempt
 * and its consequences (next attempt, endpoint health, disabling) atomically.
 */

export const DISABLED_EVENT = "webhook_endpoint.disabled";
/** Successful attempts recorded by one statement at most. */
export const MAX_RECORDS_PER_STATEMENT = 256;
const DAY_MS = 86_400_000;

export interface DelivererOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  box: SecretBox;
  sender: Sender;
  random: () => number;
  workerId: string;
  disableAfterDays: number;
}

type Outcome = { status: DeliveryRow["status"]; nextAttemptAt: Date | null; disable?: DisabledReason };

export function createDeliverer(options: DelivererOptions) {
  const { store, clock, log } = options;
  // Successes (the common case) are recorded together: one statement for all that
  // finished while the one before was being written, instead of one each.
  const successes = createBatcher<AttemptRecord>((records) =>
    withRetries(log, () => recordAttempts(store, records).then(() => undefined)),
  );

  async function attempt(
    delivery: DeliveryRow,
    endpoint: EndpointDeliveryRow,
    event: EventRow | undefined,
    span: TraceSpan | undefined,
  ): Promise<Attempted> {
    const result = event
      ? await sendEvent(options, endpoint, event, span)
      : unsent(clock.now(), "event no longer exists (past retention)");
    const now = clock.now();
    const outcome = event ? decide(delivery, endpoint, result, now, options.random) : final();
    span?.set({
      "http.response.status_code": result.statusCode ?? undefined,
      "tessera.webhook.outcome": outcome.status,
    });
    if (span && outcome.status !== "succeeded")
      span.fail(result.statusCode === null ? "no_response" : String(result.statusCode));
    log.debug("webhook attempt", {
      delivery: delivery.id,
      endpoint: endpoint.id,
      status_code: result.statusCode,
      error: result.error,
      outcome: outcome.status,
    });
    const record: AttemptRecord = { delivery, workerId: options.workerId, ...result, ...outcome, now };
    if (outcome.status === "succeeded") return { recorded: successes.add(record) };
    // A failure also moves the endpoint's health and may disable it, with its event.
    const recorded = withRetries(log, () =>
      store.transaction(async (tx) => {
        await recordAttempts(tx, [record]);
        await updateEndpointHealth(tx, options, endpoint, result, now, outcome.disable);
      }),
    );
    return { recorded };
  }

  /**
   * Sends one attempt; resolves once the receiver answered (or did not), with the promise
   * of its record. Until that settles the delivery stays leased, so a crash in between
   * sends it again with the same `webhook-id` after the lease: at least once.
   */
  return async function deliver(
    delivery: DeliveryRow,
    endpoint: EndpointDeliveryRow,
    event: EventRow | undefined,
  ): Promise<Attempted> {
    const span = tracer() && startDeliverySpan(delivery, endpoint, event);
    if (span === undefined) return attempt(delivery, endpoint, event, undefined);
    const failed = (error: unknown) => {
      span.fail(error);
      span.end();
      throw error;
    };
    try {
      const { recorded } = await withinSpan(span, () => attempt(delivery, endpoint, event, span));
      return { recorded: recorded.then(() => span.end(), failed) };
    } catch (error) {
      return failed(error);
    }
  };
}

/** An attempt sent: `recorded` settles when its outcome is in the store (rejects if it could not be). */
export interface Attempted {
  recorded: Promise<void>;
}

/** An `events` row with the trace it was recorded in (migration 0024), when tracing was on then. */
type TracedEventRow = EventRow & { traceparent?: string | null };

/**
 * One attempt as a span (tracing on): a trace of its own, since it may come hours after the
 * request, linked to the trace the event was recorded in. Its `traceparent` goes with the POST
 * (`sendEvent`): the receiver's spans are its children. It holds ids, the attempt's number, the
 * endpoint's host and the status: never the endpoint's URL path or query (a receiver's token often
 * is one), a header, the body or the secret.
 */
function startDeliverySpan(
  delivery: DeliveryRow,
  endpoint: EndpointDeliveryRow,
  event: TracedEventRow | undefined,
): TraceSpan | undefined {
  const url = URL.canParse(endpoint.url) ? new URL(endpoint.url) : undefined;
  return tracer()?.start("webhook.deliver", {
    kind: "client",
    parent: null,
    links: event?.traceparent ? [event.traceparent] : [],
    attributes: {
      "tessera.organization_id": delivery.org_id,
      "tessera.webhook.endpoint_id": endpoint.id,
      "tessera.webhook.delivery_id": delivery.id,
      "tessera.webhook.attempt": delivery.attempts + 1,
      "tessera.event.id": delivery.event_id,
      "tessera.event.type": delivery.event_type,
      "http.request.method": "POST",
      "server.address": url?.hostname,
    },
  });
}

async function sendEvent(
  options: DelivererOptions,
  endpoint: EndpointDeliveryRow,
  event: EventRow,
  span: TraceSpan | undefined,
) {
  const now = options.clock.now();
  let secrets: string[];
  try {
    secrets = signingSecrets(endpoint, now, options.box);
  } catch {
    // Never log the sealed value or the reason: only that it could not be opened.
    return unsent(now, "signing secret cannot be opened (was TESSERA_SECRET changed?)");
  }
  // Serialized once per attempt: these bytes are signed and sent, unchanged.
  const body = JSON.stringify(renderEvent(event));
  const id = event.id;
  const headers: Record<string, string> = {
    ...endpoint.headers,
    ...signedHeaders({ secrets, id, now, body }),
  };
  // W3C Trace Context: the receiver continues this attempt's trace (the signature covers the body only).
  if (span) headers.traceparent = span.traceparent;
  return options.sender.send({ url: endpoint.url, body, headers });
}

function unsent(at: Date, error: string): SendResult {
  return {
    startedAt: at,
    durationMs: 0,
    statusCode: null,
    responseHeaders: null,
    responseBody: null,
    error,
  };
}

const final = (): Outcome => ({ status: "failed", nextAttemptAt: null });

/** 2xx succeeds; 410 fails for good and disables; anything else waits for the next attempt, if any. */
function decide(
  delivery: DeliveryRow,
  endpoint: EndpointDeliveryRow,
  result: SendResult,
  now: Date,
  random: () => number,
): Outcome {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) return { status: "succeeded", nextAttemptAt: null };
  if (code === 410) return { ...final(), disable: "gone" };
  const policy = RetryPolicySchema.safeParse(endpoint.retry_policy);
  const retryAfterS =
    code === 429 || code === 503 ? parseRetryAfter(result.responseHeaders?.["retry-after"], now) : undefined;
  const next = nextAttemptAt(
    delivery.attempts + 1,
    now,
    random,
    policy.success ? policy.data : undefined,
    retryAfterS,
  );
  return next ? { status: "pending", nextAttemptAt: next } : final();
}

async function updateEndpointHealth(
  tx: Queryable,
  options: DelivererOptions,
  endpoint: EndpointDeliveryRow,
  result: SendResult,
  now: Date,
  disable: DisabledReason | undefined,
): Promise<void> {
  await markEndpointFailing(tx, endpoint.id, result.startedAt);
  const disabled = disable
    ? await disableEndpoint(tx, endpoint.id, disable, now)
    : await disableEndpoint(
        tx,
        endpoint.id,
        "failing",
        now,
        new Date(now.getTime() - options.disableAfterDays * DAY_MS),
      );
  if (disabled) await announceDisabled(tx, options.log, disabled, now);
}

/** Records `webhook_endpoint.disabled` in the transaction that disabled the endpoint. */
export async function announceDisabled(tx: Queryable, log: Logger, row: Row, now: Date): Promise<void> {
  log.info("webhook endpoint disabled", { endpoint: row.id, reason: row.disabled_reason });
  await recordEvents(tx, row.org_id as string, now, [
    { type: DISABLED_EVENT, object: renderWebhookEndpoint(row) },
  ]);
}

/**
 * Records in batches, one statement at a time: what is added while a batch is being written
 * waits and goes in the next one, so batches grow with the rate and the store's round trip
 * (graphile-worker's batched job completion). Each `add` settles with its batch. A batch
 * never holds one key twice: a second record of a delivery waits for the batch after.
 */
function createBatcher<T extends { delivery: { id: string } }>(
  flush: (items: T[]) => Promise<void>,
  max = MAX_RECORDS_PER_STATEMENT,
) {
  type Batch = { items: T[]; settles: Array<(error?: Error) => void>; keys: Set<string> };
  const batches: Batch[] = [];
  let busy = false;
  const next = () => {
    const batch = batches.shift();
    if (!batch) return void (busy = false);
    busy = true;
    const settle = (error?: Error) => batch.settles.forEach((done) => done(error));
    flush(batch.items)
      .then(
        () => settle(),
        (error: unknown) => settle(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(next);
  };
  return {
    add(item: T): Promise<void> {
      let tail = batches.at(-1);
      if (!tail || tail.items.length >= max || tail.keys.has(item.delivery.id)) {
        tail = { items: [], settles: [], keys: new Set() };
        batches.push(tail);
      }
      const batch = tail;
      batch.items.push(item);
      batch.keys.add(item.delivery.id);
      // The first record waits one turn of the event loop for the others finishing with it.
      if (!busy) {
        busy = true;
        setImmediate(next);
      }
      return new Promise((resolve, reject) =>
        batch.settles.push((error) => (error === undefined ? resolve() : reject(error))),
      );
    },
  };
}

/**
 * Recording survives a short database outage: a few tries, each bounded in time, then the
 * lease hands the delivery on.
 */
async function withRetries(log: Logger, fn: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withDeadline(fn(), "recording a webhook attempt");
    } catch (error) {
      if (attempt >= 8) throw error;
      log.warn("recording a webhook attempt failed; retrying", { attempt, error });
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)));
    }
  }
}
