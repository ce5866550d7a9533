import { APIPromise, type RawResponse } from "./core/api-promise.ts";
import type { BaseClient } from "./core/base-client.ts";
import { TesseraError, errorFromResponse } from "./core/errors.ts";
import type { RequestOptions } from "./core/options.ts";
import { readSSE } from "./core/sse.ts";
import type { Problem, SyncAction, SyncChatParams, SyncInteraction } from "./generated/types.ts";

/**
 * What a streamed SYNC reply sends (docs/sync.md): `delta`s of the reply's text as it is written,
 * one `action` per proposed action, then the whole `interaction`; or an `error` (a problem) instead.
 */
export type SyncStreamEvent =
  | { type: "delta"; text: string }
  | { type: "action"; action: SyncAction }
  | { type: "interaction"; interaction: SyncInteraction }
  | { type: "error"; error: Problem };

/**
 * A streamed SYNC reply: iterate its events once with `for await`, or await `finalInteraction()`.
 *
 * @example
 *   const stream = await client.sync.chat({ message: "Which invoices are overdue?", stream: true });
 *   for await (const event of stream) if (event.type === "delta") process.stdout.write(event.text);
 *   const interaction = await stream.finalInteraction();
 */
export class SyncChatStream implements AsyncIterable<SyncStreamEvent> {
  readonly response: Response;
  readonly #events: AsyncGenerator<SyncStreamEvent, void, undefined>;
  readonly #abort: (() => void) | undefined;
  #iterated = false;
  #interaction: SyncInteraction | undefined;
  #error: Problem | undefined;

  constructor(raw: RawResponse) {
    this.response = raw.response;
    this.#abort = raw.abort;
    this.#events = this.#read();
  }

  async *#read(): AsyncGenerator<SyncStreamEvent, void, undefined> {
    try {
      for await (const { event, data } of readSSE(this.response.body!)) {
        const parsed = JSON.parse(data) as unknown;
        if (event === "delta") yield { type: "delta", text: (parsed as { text: string }).text };
        else if (event === "action") yield { type: "action", action: parsed as SyncAction };
        else if (event === "interaction") {
          this.#interaction = parsed as SyncInteraction;
          yield { type: "interaction", interaction: this.#interaction };
        } else if (event === "error") {
          this.#error = parsed as Problem;
          yield { type: "error", error: this.#error };
        }
        // Any other event is a later server's: skipped, so this client keeps working.
      }
    } catch (error) {
      // `abort()` ends the stream where it is, as leaving the loop does.
      if (!(error instanceof Error && error.name === "AbortError")) throw error;
    } finally {
      this.#abort?.();
    }
  }

  [Symbol.asyncIterator](): AsyncGenerator<SyncStreamEvent, void, undefined> {
    if (this.#iterated)
      throw new TesseraError("A SYNC stream is iterated once: keep its events as they come");
    this.#iterated = true;
    return this.#events;
  }

  /**
   * The interaction the stream ends with, reading what is left of it. Throws the stream's `error`
   * event as an `APIError`.
   */
  async finalInteraction(): Promise<SyncInteraction> {
    this.#iterated = true;
    for await (const event of this.#events) void event;
    if (this.#error) {
      throw errorFromResponse(this.#error.status, this.response.headers, JSON.stringify(this.#error));
    }
    if (!this.#interaction) throw new TesseraError("The SYNC stream ended before its interaction");
    return this.#interaction;
  }

  /** Stops reading and closes the connection. */
  abort(): void {
    this.#abort?.();
  }
}

/** `POST /v1/sync/chat`: the interaction, or with `stream: true` its stream (`Accept: text/event-stream`). */
export function syncChat(
  client: BaseClient,
  params: SyncChatParams & { stream?: boolean },
  options?: RequestOptions,
): APIPromise<SyncChatStream | SyncInteraction> {
  const { stream, ...body } = params;
  if (!stream)
    return client.request<SyncInteraction>({ method: "POST", path: "/v1/sync/chat", body }, options);
  // No Idempotency-Key of our own: the server holds a keyed answer back until it is complete, to
  // store it, so a keyed stream arrives all at once at its end. Asking changes nothing, so a retry
  // without one at most records the question twice. A key the caller gives is sent.
  const raw = client.makeRequest(
    {
      method: "POST",
      path: "/v1/sync/chat",
      body,
      accept: "text/event-stream",
      stream: true,
      idempotencyKey: false,
    },
    options,
  );
  return new APIPromise(raw, (response) => new SyncChatStream(response));
}
