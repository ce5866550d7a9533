import type { ServerResponse } from "node:http";

/**
 * Ends a whole response once this turn of the event loop has handled its other I/O, together with
 * every other response ended that turn (uWebSockets corks a loop iteration's writes the same way).
 *
 * Each response is still its own write, but they now leave back to back. On loopback, where
 * a proxy or a load generator on the same host reads them, the write that finds its reader
 * asleep pays to wake it (~20 µs on a paravirtualized machine: `sock_def_readable`, then an
 * interrupt restore). Written together, only the first one does; written one per request, as
 * Node's `res.end` does at once, nearly every one did. Measured on a trivial function: 82 → 60 µs of
 * main-thread CPU per request, 11,900 → 16,000 req/s (bench/README.md, function-invoke).
 *
 * A response waits at most for the requests read in the same turn, which run before it anyway.
 * One that fails to end (a socket gone, a length Node rejects) is destroyed; the rest still end.
 */
export function endTogether(res: ServerResponse, body: string | Uint8Array | null): void {
  pending.push(res, body);
  if (pending.length === 2) setImmediate(endPending);
}

const pending: Array<ServerResponse | string | Uint8Array | null> = [];

function endPending(): void {
  const batch = pending.splice(0);
  for (let i = 0; i < batch.length; i += 2) {
    const res = batch[i] as ServerResponse;
    try {
      res.end(batch[i + 1] as string | Uint8Array | null);
    } catch {
      res.destroy();
    }
  }
}
