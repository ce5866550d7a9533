import { ServerResponse, type IncomingMessage } from "node:http";

/**
 * A `ServerResponse` class for one server (`createServer({ ServerResponse: … })`, as
 * api/server.ts makes it) whose `end()` takes effect once this turn of the event loop has
 * handled its other I/O, together with every other response of that server ended in the
 * turn (uWebSockets corks a loop iteration's writes the same way). Node's own `end()`
 * uncorks the socket at once, so corking cannot do this.
 *
 * Why: each response is still its own write, but they now leave back to back. On loopback,
 * where a reverse proxy or a load generator on the same host reads them, the write that finds
 * its reader asleep pays to wake it (~20 µs on a paravirtualized machine: `sock_def_readable`,
 * then an interrupt restore). Written together, only the first one does; written one per
 * request, nearly every one did. Measured on a trivial function: 82 → 60 µs of main-thread
 * CPU per request, 11,900 → 16,000 req/s (bench/README.md, function-invoke).
 *
 * A response waits at most for the rest of its turn (the other requests read with it): its
 * latency grows by that much, and every response's shrinks by the wake-ups saved.
 * `writableEnded` and `finish` follow the real end. One that fails to end (a length Node
 * rejects) is destroyed; the rest still end.
 *
 * @example
 *   const server = createServer({ ServerResponse: endOfTurnResponses() }, listener);
 */
export function endOfTurnResponses(): typeof ServerResponse {
  /** This server's responses to end at the end of the turn, with their arguments: four slots each. */
  let pending: unknown[] = [];

  const endPending = () => {
    const batch = pending;
    pending = [];
    for (let i = 0; i < batch.length; i += 4) {
      const res = batch[i] as EndOfTurnResponse;
      try {
        res.endNow(batch[i + 1], batch[i + 2], batch[i + 3]);
      } catch {
        res.destroy();
      }
    }
  };

  class EndOfTurnResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
    override end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
      if (pending.push(this, chunk, encoding, callback) === 4) setImmediate(endPending);
      return this;
    }

    /** Node's own `end`, which sorts out which of its arguments were given. */
    endNow(chunk: unknown, encoding: unknown, callback: unknown): void {
      super.end(chunk, encoding as BufferEncoding, callback as (() => void) | undefined);
    }
  }
  return EndOfTurnResponse;
}
