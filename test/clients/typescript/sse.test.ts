import { describe, expect, it } from "vitest";
import { SSEDecoder, readSSE, type ServerSentEvent } from "../../../clients/typescript/src/core/sse.ts";

/** Every event of `text`, fed in pieces cut at `cuts`. */
function decode(text: string, cuts: number[] = []): ServerSentEvent[] {
  const decoder = new SSEDecoder();
  const events: ServerSentEvent[] = [];
  let from = 0;
  for (const at of [...cuts, text.length]) {
    events.push(...decoder.push(text.slice(from, at)));
    from = at;
  }
  decoder.end();
  return events;
}

const STREAM =
  ': open\r\n\r\nevent: delta\r\ndata: {"text":"Hel"}\r\n\r\nevent: delta\ndata: {"text":"lo"}\n\n' +
  "id: act_1\revent: action\rdata: line one\rdata:line two\r\r" +
  "retry: 2500\n: keep-alive\n\nevent: interaction\ndata\ndata: x\n\n";

describe("the client's text/event-stream parser (WHATWG HTML 9.2.6)", () => {
  it("reads CRLF, LF and CR line ends, comments, multi-line data and a field without a colon", () => {
    expect(decode(STREAM)).toEqual([
      { event: "delta", data: '{"text":"Hel"}', id: undefined },
      { event: "delta", data: '{"text":"lo"}', id: undefined },
      { event: "action", data: "line one\nline two", id: "act_1" },
      { event: "interaction", data: "\nx", id: "act_1" },
    ]);
  });

  it("gives the same events however the stream is cut into chunks, a CRLF split in two included", () => {
    const whole = decode(STREAM);
    for (let at = 1; at < STREAM.length; at++) expect(decode(STREAM, [at])).toEqual(whole);
    const everyChar = Array.from({ length: STREAM.length - 1 }, (_, index) => index + 1);
    expect(decode(STREAM, everyChar)).toEqual(whole);
  });

  it("keeps the retry time and the last event id; an event with no data is not dispatched", () => {
    const decoder = new SSEDecoder();
    expect(decoder.push("retry: 1500\nid: evt_9\nevent: ping\n\n")).toEqual([]);
    expect(decoder.retryMs).toBe(1500);
    expect(decoder.lastEventId).toBe("evt_9");
    expect(decoder.push("retry: soon\ndata: a\n\n")).toEqual([{ event: "message", data: "a", id: "evt_9" }]);
    expect(decoder.retryMs).toBe(1500);
  });

  it("drops an event the stream ended in the middle of", () => {
    expect(decode("data: complete\n\ndata: cut off")).toEqual([
      { event: "message", data: "complete", id: undefined },
    ]);
    expect(decode("data: no blank line\n")).toEqual([]);
    const decoder = new SSEDecoder();
    decoder.push("id: evt_1\ndata: a\n\nid: evt_2\ndata: cut");
    decoder.end();
    expect(decoder.lastEventId).toBe("evt_1");
  });

  it("reads a byte stream: UTF-8 split inside a character, a BOM at the start", async () => {
    const bytes = new TextEncoder().encode("\uFEFFdata: café ☕\n\n");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    const events: ServerSentEvent[] = [];
    for await (const event of readSSE(body)) events.push(event);
    expect(events).toEqual([{ event: "message", data: "café ☕", id: undefined }]);
  });

  it("cancels the body when the reader leaves the loop", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: again\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readSSE(body)) {
      expect(event.data).toBe("again");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
