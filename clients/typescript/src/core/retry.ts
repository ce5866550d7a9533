import { retryAfterMsOf } from "./errors.ts";

/** The first wait between attempts, doubled after each (openai-node's schedule). */
export const INITIAL_RETRY_DELAY_MS = 500;
/** The longest wait of the backoff. */
export const MAX_RETRY_DELAY_MS = 8_000;
/** A server asking for longer than this is not waited for: the error is thrown at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Statuses worth another attempt: a timeout, the rate limit, the server's own failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * How long to wait before retry number `retry` (0 for the first retry): what the server asked
 * (`Retry-After` or `retry-after-ms`) when it did, else a jittered exponential backoff from 0.5 s
 * to 8 s. Undefined when the server asked for longer than `MAX_RETRY_AFTER_MS`: give up now.
 *
 * @example
 *   retryDelayMs(0, undefined, Date.now(), Math.random); // 375–500
 *   retryDelayMs(3, new Headers({ "retry-after": "2" }), Date.now(), Math.random); // 2000
 */
export function retryDelayMs(
  retry: number,
  headers: Headers | undefined,
  now: number,
  random: () => number,
): number | undefined {
  const asked = headers ? retryAfterMsOf(headers, now) : undefined;
  if (asked !== undefined) return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
  const backoff = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS);
  // Up to a quarter less, so clients that failed together do not retry together.
  return backoff * (1 - random() * 0.25);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
