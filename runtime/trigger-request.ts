import { newId, rfc3339 } from "../core/index.ts";
import type { Event } from "../engines/index.ts";

/**
 * What a trigger's request to a function carries besides its body, in one place: the run worker
 * and `POST /v1/functions/{id}/trigger` (function-trigger.ts) send it to a deployed version, and
 * `tessera functions trigger --local` to the folder `functions serve` runs, so a function answers
 * a made-up event locally exactly as it will the real one.
 */
export interface TriggerHeaderParts {
  trigger: "event" | "cron";
  runId: string;
  attempt: number;
  eventId: string | null;
}

export function triggerHeaders(parts: TriggerHeaderParts): Array<[string, string]> {
  const headers: Array<[string, string]> = [
    ["content-type", "application/json"],
    ["user-agent", "Tessera-Triggers/1"],
    ["tessera-trigger", parts.trigger],
    ["tessera-run-id", parts.runId],
    ["tessera-attempt", String(parts.attempt)],
  ];
  if (parts.eventId) headers.push(["tessera-event-id", parts.eventId]);
  return headers;
}

/** A run id made as a queued run's is (migration 0014), for a run no row holds. */
export function newRunId(): string {
  return `frun_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** An event that is never written: what a trigger by hand sends as the body. */
export function madeUpEvent(type: string, data: Event["data"], now: Date): Event {
  return { id: newId("evt"), object: "event", type, timestamp: rfc3339(now), data };
}
