/** One dispatched Server-Sent Event. */
export interface ServerSentEvent {
  /** `event:` (`message` when the event named none). */
  event: string;
  /** The `data:` lines, joined by `\n`. */
  data: string;
  /** The last event ID the stream set, by this event or an earlier one: what a reconnect sends as `Last-Event-ID`. */
  id: string | undefined;
}

/**
 * A `text/event-stream` parser fed text in chunks of any size (WHATWG HTML, 9.2.6 "Interpreting an
 * event stream"): lines end in CRLF, LF or CR, even split across chunks; `:` lines are comments;
 * `data:` lines accumulate; a blank line dispatches; an event cut off by the end is dropped.
 *
 * @example
 *   const decoder = new SSEDecoder();
 *   decoder.push("event: delta\ndata: {\"text\":\"Hi\"}\n"); // []
 *   decoder.push("\n"); // [{ event: "delta", data: "{\"text\":\"Hi\"}", id: undefined }]
 */
export class SSEDecoder {
  /** The reconnection time the stream asked for with `retry:`, in ms. */
  retryMs: number | undefined;
  /** The `id:` last read; on a dispatch it becomes the id a reconnect resumes from. */
  lastEventId: string | undefined;
  #dispatchedId: string | undefined;
  #buffer = "";
  #data: string[] = [];
  #event = "";

  push(text: string): ServerSentEvent[] {
    this.#buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let at = 0; at < this.#buffer.length; at++) {
      const char = this.#buffer[at];
      if (char !== "\n" && char !== "\r") continue;
      // A CR at the end of what arrived may be the first half of a CRLF: wait for the next chunk.
      if (char === "\r" && at === this.#buffer.length - 1) break;
      const event = this.#line(this.#buffer.slice(start, at));
      if (event) events.push(event);
      if (char === "\r" && this.#buffer[at + 1] === "\n") at++;
      start = at + 1;
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  /**
   * The stream ended: what is pending (a line without its end, an event without its blank line)
   * is dropped, the `id:` of such an event too.
   */
  end(): void {
    this.lastEventId = this.#dispatchedId;
    this.#buffer = "";
    this.#data = [];
    this.#event = "";
  }

  #line(line: string): ServerSentEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#event = value;
    else if (field === "data") this.#data.push(value);
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }

  #dispatch(): ServerSentEvent | undefined {
    this.#dispatchedId = this.lastEventId;
    const data = this.#data;
    const event = this.#event || "message";
    this.#data = [];
    this.#event = "";
    if (data.length === 0) return undefined;
    return { event, data: data.join("\n"), id: this.lastEventId };
  }
}

/** The events of a `text/event-stream` body, as they arrive; leaving the loop cancels the body. */
export async function* readSSE(
  body: ReadableStream<Uint8Array>,
  decoder = new SSEDecoder(),
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  const text = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* decoder.push(text.decode(value, { stream: true }));
    }
    yield* decoder.push(text.decode());
    decoder.end();
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
