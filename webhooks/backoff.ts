/**
 * When to try a failed delivery again: a pure function of (attempt, now, random),
 * like graphile-worker's `calculateDelay`, so tests inject `random` and step time.
 */

/** Svix's schedule: the delays after attempts 1…7; the 8th attempt is the last. */
export const DEFAULT_SCHEDULE_S = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000] as const;
/** ±20 %: spreads the retries of an outage's backlog so they do not return at once. */
export const JITTER = 0.2;
/** A `Retry-After` longer than this is cut to it: a receiver cannot park a message for ever. */
export const MAX_RETRY_AFTER_S = 86_400;

/**
 * A per-endpoint policy (validated at the edge by `RetryPolicySchema` in
 * endpoint-schemas.ts): an explicit `schedule_s`, or `exponential` with `max_attempts`.
 */
export interface BackoffPolicy {
  schedule_s?: readonly number[];
  exponential?: { base_s: number; cap_s: number };
  max_attempts?: number;
}

/**
 * When attempt `attempt + 1` is due after attempt number `attempt` (1-based) failed
 * at `now`, or null when that was the last one. `retryAfterS` (a receiver's
 * `Retry-After` on 429/503) replaces the computed delay, bounded to 24 h, but
 * never grants attempts beyond the policy.
 *
 * @example
 *   nextAttemptAt(1, now, () => 0.5); // now + 5 s (no jitter at random = 0.5)
 *   nextAttemptAt(8, now, Math.random); // null: give up
 */
export function nextAttemptAt(
  attempt: number,
  now: Date,
  random: () => number,
  policy?: BackoffPolicy | null,
  retryAfterS?: number,
): Date | null {
  const delayS = baseDelayS(attempt, policy ?? undefined);
  if (delayS === null) return null;
  if (retryAfterS !== undefined) {
    return new Date(now.getTime() + Math.min(Math.max(retryAfterS, 0), MAX_RETRY_AFTER_S) * 1000);
  }
  const factor = 1 + (random() * 2 - 1) * JITTER;
  return new Date(now.getTime() + Math.round(delayS * factor * 1000));
}

/** How many attempts a policy allows in all. */
export function maxAttempts(policy?: BackoffPolicy | null): number {
  if (policy?.schedule_s) return policy.schedule_s.length + 1;
  if (policy?.exponential) return policy.max_attempts ?? 1;
  return DEFAULT_SCHEDULE_S.length + 1;
}

function baseDelayS(attempt: number, policy: BackoffPolicy | undefined): number | null {
  if (attempt < 1 || attempt >= maxAttempts(policy)) return null;
  if (policy?.exponential) {
    const { base_s, cap_s } = policy.exponential;
    return Math.min(cap_s, base_s * 2 ** (attempt - 1));
  }
  return (policy?.schedule_s ?? DEFAULT_SCHEDULE_S)[attempt - 1] ?? null;
}

/**
 * Seconds to wait from a `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an
 * HTTP-date), or undefined when absent or unreadable.
 *
 * @example
 *   parseRetryAfter("120", now); // 120
 *   parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now); // seconds until then (≥ 0)
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  // An HTTP-date names its day and month (IMF-fixdate or the obsolete forms); "-5" is no date.
  const at = /[A-Za-z]/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
