import { createHmac } from "node:crypto";
import { signedHeaders } from "../webhooks/index.ts";
import { describeFailure, type ApiAnswer } from "./api-client.ts";

/**
 * `tessera webhooks listen --forward-to URL`: the organization's events, as they happen,
 * delivered to a local receiver with the same Standard Webhooks headers a real endpoint gets
 * (Stripe's `stripe listen` is the model). The CLI reads the API's event stream
 * (`GET /v1/events/stream`) with the caller's key and signs each event itself with a
 * session secret, so nothing of the server's address guard is loosened for a receiver on
 * localhost: the server never calls it.
 */
export interface ListenOptions {
  base: string;
  key: string;
  forwardTo: string | undefined;
  /** Event types, a comma list or one family (`invoice.*`). */
  events: string | undefined;
  /** Events to send first, by id. */
  replay: string[];
  /** Stop after this many deliveries (0: never). */
  count: number;
  printSecret: boolean;
  print: (line: string) => void;
  signal: AbortSignal;
}

/**
 * The session's signing secret: derived from the key and the server, so it is the same on
 * every run (a receiver started once keeps verifying) and differs for another key or server.
 */
export function listenSecret(key: string, base: string): string {
  const secret = createHmac("sha256", key).update(`tessera webhooks listen ${base}`).digest("base64");
  return `whsec_${secret}`;
}

export async function webhooksListen(options: ListenOptions): Promise<number> {
  const secret = listenSecret(options.key, options.base);
  if (options.printSecret) {
    options.print(secret);
    return 0;
  }
  if (!options.forwardTo)
    throw new UsageError("webhooks listen --forward-to URL [--events TYPES] [--replay evt_…]");
  let delivered = 0;
  const deliver = async (event: { id: string; type: string }, body: string) => {
    const status = await forward(options.forwardTo!, secret, event.id, body);
    options.print(`${time()}  ${event.type} ${event.id} → ${status}`);
    delivered++;
  };
  const done = () => options.count > 0 && delivered >= options.count;
  for (const id of options.replay) {
    const answer = await get(options, `/v1/events/${encodeURIComponent(id)}`);
    if (answer.status !== 200) throw new Error(describeFailure(answer));
    await deliver(JSON.parse(answer.text) as { id: string; type: string }, answer.text);
    if (done()) return 0;
  }
  let lastId: string | undefined;
  let ready = false;
  // Ready once the stream is open: events from then on are sent (the server starts it at its newest).
  const connected = () => {
    if (ready) return;
    ready = true;
    options.print(`Ready! Forwarding events to ${options.forwardTo}, signed with ${secret} (^C to quit)`);
  };
  while (!options.signal.aborted && !done()) {
    try {
      lastId = await readStream(options, lastId, connected, async (id, data) => {
        await deliver(JSON.parse(data) as { id: string; type: string }, data);
        return !done();
      });
    } catch (error) {
      if (options.signal.aborted) break;
      if (error instanceof StreamRefused) throw error;
      options.print(`${time()}  the event stream broke (${(error as Error).message}); reconnecting`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  return 0;
}

export class UsageError extends Error {}
class StreamRefused extends Error {}

/**
 * Reads `GET /v1/events/stream` until it ends or `onEvent` says stop; returns the last event id
 * read. `onOpen` is called once the server has answered 200 (the stream's start is fixed then).
 */
async function readStream(
  options: ListenOptions,
  lastId: string | undefined,
  onOpen: () => void,
  onEvent: (id: string, data: string) => Promise<boolean>,
): Promise<string | undefined> {
  const query = options.events ? `?type=${encodeURIComponent(options.events)}` : "";
  const response = await fetch(new URL(`/v1/events/stream${query}`, options.base), {
    headers: {
      authorization: `Bearer ${options.key}`,
      accept: "text/event-stream",
      ...(lastId ? { "last-event-id": lastId } : {}),
    },
    signal: options.signal,
  });
  if (response.status !== 200 || !response.body) {
    const answer: ApiAnswer = {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
    };
    throw new StreamRefused(describeFailure(answer));
  }
  onOpen();
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    // One SSE message per blank line (WHATWG HTML, "Server-sent events", interpreting an event stream).
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const message = parseMessage(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (!message.data) continue;
      if (message.id) lastId = message.id;
      if (!(await onEvent(message.id ?? "", message.data))) {
        await response.body.cancel();
        return lastId;
      }
    }
  }
  return lastId;
}

function parseMessage(text: string): { id?: string; data?: string } {
  const message: { id?: string; data?: string } = {};
  for (const line of text.split("\n")) {
    if (line.startsWith(":")) continue;
    const at = line.indexOf(":");
    const field = at < 0 ? line : line.slice(0, at);
    const value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
    if (field === "id") message.id = value;
    else if (field === "data")
      message.data = message.data === undefined ? value : `${message.data}\n${value}`;
  }
  return message;
}

/** POSTs one event as a webhook delivery would be sent; the receiver's status, or why it failed. */
async function forward(url: string, secret: string, id: string, body: string): Promise<string> {
  const headers = signedHeaders({ secrets: [secret], id, now: new Date(), body });
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "user-agent": "Tessera-CLI-Listen/1" },
      body,
      signal: AbortSignal.timeout(15_000),
    });
    await response.arrayBuffer();
    return String(response.status);
  } catch (error) {
    return `failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
  }
}

async function get(options: ListenOptions, path: string): Promise<ApiAnswer> {
  const response = await fetch(new URL(path, options.base), {
    headers: { authorization: `Bearer ${options.key}` },
    signal: options.signal,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function time(): string {
  return new Date().toISOString().slice(11, 19);
}
