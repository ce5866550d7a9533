/**
 * Store calls of the worker that must not wait for ever. postgres.js 3.4 can leave a
 * query pending for good when its connection dies mid-transaction (a database
 * restart: porsager/postgres#1186, #1215); the worker then gives up on that call and
 * goes on, and the lease hands any delivery it held to the next claim.
 */
export const STORE_DEADLINE_MS = 10_000;

/** `promise`, or a rejection naming `what` once `ms` pass without it settling. */
export function withDeadline<T>(promise: Promise<T>, what: string, ms = STORE_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer from the store within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
