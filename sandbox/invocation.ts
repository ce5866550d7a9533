import type { ReadableStream } from "node:stream/web";
import type { LogLevel } from "./protocol.ts";

export type { LogLevel };

/** One request for a function, as the runtime hands it to the pool. */
export interface InvocationRequest {
  /** `ctx.request_id`, after the context's fields. */
  requestId: string;
  method: string;
  /** The original public URL the function sees. */
  url: string;
  headers: Array<[string, string]>;
  /** The whole request body (its size is already limited by the API). */
  body: Uint8Array | null;
  /**
   * JSON-able context: `ctx.user` and any other field become `ctx.<field>`. Its JSON is kept by
   * the object's identity, so hand the same object to all of one caller's requests and never
   * change it after its first use.
   */
  context: { user: unknown; [k: string]: unknown };
}

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  url: string;
}

/** What a request may reach outside its isolate; the runtime implements it per request. */
export interface InvocationIO {
  /**
   * Global `fetch` (via "network") and `ctx.platform.fetch(path, init)` (via "platform",
   * `url` is then the path relative to the API). The runtime applies the private-address
   * guard, subrequest limits and auth; a thrown error reaches the guest as a TypeError.
   */
  fetch(request: OutboundRequest, via: "network" | "platform"): Promise<OutboundResponse>;
  /** Tessera ops ("engines.get" {engine,key}, "engines.set", "engines.delete", "engines.list"): JSON in, JSON out. */
  call(op: string, args: unknown): Promise<unknown>;
  /** The organization's latest intelligence snapshot, or null; read only when the guest touches `ctx.snapshot`. */
  snapshot(): unknown;
  log(level: LogLevel, message: string): void;
  /** Present only when the request arrived as a WebSocket upgrade: how the guest's acceptance completes it. */
  readonly upgrade?: SocketUpgrade;
  /**
   * `new WebSocket(url, protocols)` in the guest: the runtime applies the private-address guard and
   * counts it as a subrequest (a thrown error reaches the guest's constructor). Absent: refused.
   */
  connect?(url: string, protocols: string[], events: SocketEvents): HostSocket;
}

/**
 * A request that arrived as a WebSocket upgrade (the runtime's). The guest accepts it by
 * answering with `Deno.upgradeWebSocket`'s response; the sandbox then calls `accept`, the
 * request answers 101 and lasts until the socket closes.
 */
export interface SocketUpgrade {
  /**
   * How long the accepted socket may stay open, ms; it then closes with 1001. 0: the request's
   * wall-time limit keeps running and bounds the socket as it bounds any request.
   */
  readonly lifetimeMs: number;
  /** Completes the handshake with the subprotocol the guest chose (null: none); throws if the client is gone. */
  accept(protocol: string | null, events: SocketEvents): HostSocket;
}

/** The host's end of one WebSocket: what the guest's `send` and `close` reach. */
export interface HostSocket {
  /** Throws (the guest's `send` throws) past the message size limit. */
  send(data: string | Uint8Array): void;
  /** Starts the closing handshake (RFC 6455 §7); `events.close` follows. */
  close(code: number, reason: string): void;
}

/** What a WebSocket reports to the sandbox, which enters the guest with each, in order. */
export interface SocketEvents {
  open(protocol: string, extensions: string): void;
  message(data: string | Uint8Array): void;
  error(message: string): void;
  /** The last event: the socket is closed (by either side, or it failed: 1006). */
  close(code: number, reason: string, wasClean: boolean): void;
}

export interface InvocationResponse {
  status: number;
  statusText?: string;
  headers: Array<[string, string]>;
  /**
   * The body: the content when the guest answered with a whole body (a string for text and
   * JSON, to be written as UTF-8; bytes otherwise),
   * else a stream fed chunk by chunk as the guest produces them; null for none. A stream
   * errors if the guest's stream errors or a limit kills the isolate mid-stream; cancelling
   * it cancels the guest's stream (and aborts `request.signal` in the guest).
   */
  body: ReadableStream<Uint8Array> | Uint8Array | string | null;
  /** Settles when the body is done and every `ctx.waitUntil` promise settled (bounded by the wall time); never rejects. */
  finished: Promise<void>;
}
