import { APIPromise, type RawResponse } from "./core/api-promise.ts";
import type { BaseClient, RequestSpec } from "./core/base-client.ts";
import type { RequestOptions } from "./core/options.ts";
import { INITIAL_RETRY_DELAY_MS, sleep } from "./core/retry.ts";
import { readSSE, SSEDecoder } from "./core/sse.ts";
import type { Event, EventsStreamParams } from "./generated/types.ts";

/**
 * The organization's new events as they commit (`GET /v1/events/stream`), for as long as it is
 * iterated. A cut connection is opened again after the stream's `retry` time (0.5 s unless it sent
 * one), with `Last-Event-ID: <the last event's id>`, so nothing between is lost or repeated.
 *
 * @example
 *   const stream = await client.events.stream({ type: "invoice.*" });
 *   for await (const event of stream) {
 *     console.log(event.type, event.id);
 *     if (event.type === "invoice.paid") break; // closes the connection
 *   }
 */
export class EventStream implements AsyncIterable<Event> {
  /** The id of the last event received: where a reconnect resumes (or pass it as `after` later). */
  lastEventId: string | undefined;
  /** How many times the stream was opened again after a cut. */
  reconnects = 0;
  readonly #client: BaseClient;
  readonly #spec: RequestSpec;
  readonly #options: RequestOptions | undefined;
  readonly #decoder = new SSEDecoder();
  #current: RawResponse | undefined;
  #closed = false;
  #iterated = false;

  constructor(
    client: BaseClient,
    spec: RequestSpec,
    options: RequestOptions | undefined,
    first: RawResponse,
  ) {
    this.#client = client;
    this.#spec = spec;
    this.#options = options;
    this.#current = first;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Event, void, undefined> {
    if (this.#iterated) throw new Error("An event stream is iterated once");
    this.#iterated = true;
    try {
      while (!this.#stopped()) {
        let current: RawResponse;
        try {
          current = this.#current ?? (await this.#reconnect());
        } catch (error) {
          if (this.#stopped()) return;
          throw error;
        }
        // What a cut connection left half-read belongs to no event of the next one.
        this.#decoder.end();
        try {
          for await (const { data, id } of readSSE(current.response.body!, this.#decoder)) {
            this.lastEventId = id ?? this.lastEventId;
            yield JSON.parse(data) as Event;
          }
        } catch (error) {
          // A cut connection is reconnected below; anything else (bad JSON) is the caller's to see.
          if (!(error instanceof TypeError) && !isAbort(error)) throw error;
        }
        current.abort?.();
        this.#current = undefined;
      }
    } finally {
      this.close();
    }
  }

  /** Stops the stream: the loop over it ends, its connection closes. */
  close(): void {
    this.#closed = true;
    this.#current?.abort?.();
  }

  #stopped(): boolean {
    return this.#closed || this.#options?.signal?.aborted === true;
  }

  async #reconnect(): Promise<RawResponse> {
    await sleep(this.#decoder.retryMs ?? INITIAL_RETRY_DELAY_MS, this.#options?.signal);
    this.reconnects += 1;
    const query = { ...(this.#spec.query as EventsStreamParams | undefined) };
    // `after` would win over the header on the server: the stream has moved past it.
    if (this.lastEventId !== undefined) delete query.after;
    const headers = this.lastEventId === undefined ? {} : { "last-event-id": this.lastEventId };
    this.#current = await this.#client.makeRequest({ ...this.#spec, query, headers }, this.#options);
    return this.#current;
  }
}

const isAbort = (error: unknown) => error instanceof Error && error.name === "AbortError";

/** `GET /v1/events/stream`: resolves once the stream is open (a 4xx, such as an unknown `after`, throws). */
export function streamEvents(
  client: BaseClient,
  params: EventsStreamParams | undefined,
  options: RequestOptions | undefined,
): APIPromise<EventStream> {
  const spec: RequestSpec = {
    method: "GET",
    path: "/v1/events/stream",
    query: params,
    accept: "text/event-stream",
    stream: true,
  };
  return new APIPromise(
    client.makeRequest(spec, options),
    (raw) => new EventStream(client, spec, options, raw),
  );
}
