import { AppError, isAppError, randomBase62, type Clock } from "../core/index.ts";
import type { Event, EventType, KeyPrincipal } from "../engines/index.ts";
import type { Store } from "../store/index.ts";
import { sampleEventData } from "./event-sample.ts";
import { madeUpEvent, newRunId, triggerHeaders } from "./trigger-request.ts";
import { requireFunction } from "./function-queries.ts";
import type { FunctionTrigger, FunctionTriggerRun, Trigger } from "./function-schemas.ts";
import type { ActiveFunction, FunctionResponse } from "./invocation-scope.ts";
import type { FunctionInvoker } from "./invoke.ts";

/**
 * A trigger's request to a function, the same from the run worker (function-runs.ts) and from
 * `POST /v1/functions/{id}/trigger`: a `POST` of the event (or cron tick) as JSON, with the
 * `tessera-trigger`, `tessera-run-id`, `tessera-attempt` and `tessera-event-id` headers
 * (trigger-request.ts, which `functions trigger --local` sends too), acting as `principal`: the key
 * that deployed the serving version for a queued run, the caller for a trigger by hand.
 */
export interface TriggerRequest {
  trigger: "event" | "cron";
  payload: unknown;
  runId: string;
  attempt: number;
  eventId: string | null;
  principal: KeyPrincipal | undefined;
  /** The service's own URL: the request is for `{origin}/v1/functions/{name}/invoke`. */
  origin: string;
}

/** What one attempt came to: a status when the function answered, an error when it did not. */
export interface TriggerOutcome {
  version: number;
  requestId: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export async function invokeAsTrigger(
  invoker: FunctionInvoker,
  fn: ActiveFunction,
  request: TriggerRequest,
): Promise<TriggerOutcome> {
  const started = performance.now();
  const requestId = `req_${randomBase62(20)}`;
  const outcome = (statusCode: number | null, error: string | null): TriggerOutcome => ({
    version: fn.version,
    requestId,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  const headers = triggerHeaders(request);
  try {
    const response = await invoker.invoke(fn, {
      requestId,
      method: "POST",
      url: `${request.origin}/v1/functions/${fn.name}/invoke`,
      headers,
      body: Buffer.from(JSON.stringify(request.payload)),
      principal: request.principal,
      authorization: undefined,
      depth: 0,
    });
    await drain(response);
    return outcome(response.status, null);
  } catch (error) {
    const message = isAppError(error)
      ? `${error.code}: ${error.message}`
      : `function_failed: ${String(error)}`;
    return outcome(null, message);
  }
}

/** Reads a streamed answer to its end (the run is over when the function's body is). */
async function drain(response: FunctionResponse): Promise<void> {
  const body = response.body;
  if (!body || typeof body === "string" || body instanceof Uint8Array) return;
  const reader = body.getReader();
  while (!(await reader.read()).done);
}

export interface EventTriggerDeps {
  store: Store;
  clock: Clock;
  invoker: FunctionInvoker;
  /** Every event kind (GET /v1/event_types): what a trigger may name, and its sample's shape. */
  catalog: readonly EventType[];
}

/**
 * `POST /v1/functions/{id}/trigger`: runs the serving version now as its event trigger would
 * run it for an event of `event_type` with `data` (default: a sample of the kind's shape), and
 * answers with the outcome, acting as the caller. Nothing is recorded but the function's console lines: the event is
 * not written (no webhook, no other function sees it), the run is not queued nor retried.
 *
 * @example
 *   const ran = await triggerEvent(deps, orgId, "welcome", { event_type: "contact.created" }, origin);
 *   // ran.status: "succeeded"; ran.request_id: GET …/logs?request_id= shows its lines
 */
export async function triggerEvent(
  deps: EventTriggerDeps,
  caller: KeyPrincipal,
  ref: string,
  input: FunctionTrigger,
  origin: string,
): Promise<FunctionTriggerRun> {
  const orgId = caller.orgId;
  // The function first: another organization's id is a 404 whatever the body says.
  const fn = await requireFunction(deps.store, orgId, ref);
  const eventType = deps.catalog.find((entry) => entry.type === input.event_type);
  if (!eventType) {
    const message = `unknown event type '${input.event_type.slice(0, 100)}'; see GET /v1/event_types`;
    throw new AppError("validation_failed", message, {
      errors: [{ param: "event_type", code: "unknown_event_type", message }],
    });
  }
  const active = await deps.invoker.resolve(orgId, fn.id);
  if (!active) throw new AppError("not_found", `No such function: '${ref}'`);
  const now = deps.clock.now();
  const event: Event = madeUpEvent(eventType.type, input.data ?? sampleEventData(eventType, now), now);
  const outcome = await invokeAsTrigger(deps.invoker, active, {
    trigger: "event",
    payload: event,
    runId: newRunId(),
    attempt: 1,
    eventId: event.id,
    // The caller's, not the deployer's: the event is made up by the caller, so the run may do no more
    // than the caller could (a functions:write key must not reach finance data through a full-access
    // deployer's function fed forged events).
    principal: caller,
    origin,
  });
  const status = outcome.statusCode;
  const succeeded = status !== null && status >= 200 && status < 300;
  return {
    object: "function_trigger_run",
    function_id: fn.id,
    name: fn.name,
    event,
    subscribed: subscribes(fn.triggers, eventType.type),
    status: succeeded ? "succeeded" : "failed",
    version: outcome.version,
    request_id: outcome.requestId,
    status_code: status,
    error: outcome.error ?? (succeeded ? null : `the function answered ${status}`),
    duration_ms: outcome.durationMs,
  };
}

/** Whether the function's event triggers name `type`, or its family (`contact.*`). */
function subscribes(triggers: readonly Trigger[], type: string): boolean {
  const family = `${type.split(".")[0]}.*`;
  return triggers.some((t) => t.type === "event" && (t.events.includes(type) || t.events.includes(family)));
}
