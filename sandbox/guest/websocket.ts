import { currentRequest, hostSync } from "./bridge.ts";
import { Blob } from "./blob.ts";
import { DOMException } from "./dom-exception.ts";
import { utf8Encode } from "./encoding.ts";
import { ErrorEvent, Event, EventTarget, type EventInit } from "./events.ts";
import { MessageEvent } from "./messages.ts";
import { Response, type Request } from "./http.ts";
import { URL } from "./url.ts";

/**
 * WebSockets (WHATWG WebSockets Standard), both ends through the host (sandbox/socket.ts):
 * `Deno.upgradeWebSocket(request)` accepts the request's own upgrade, `new WebSocket(url)`
 * opens one out. A socket belongs to the request that accepted or opened it: its ops name
 * that request's slot (so a socket may be sent to from another request's entry, as a chat
 * room broadcasts), its events enter as that request, and it closes when that request ends.
 */

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** WebSockets §4 CloseEvent. */
export class CloseEvent extends Event {
  readonly #code: number;
  readonly #reason: string;
  readonly #wasClean: boolean;
  constructor(type: string, init: EventInit & { code?: number; reason?: string; wasClean?: boolean } = {}) {
    if (arguments.length === 0) throw new TypeError("The event type is required");
    super(type, init);
    this.#code = Number(init?.code ?? 0) & 0xffff;
    this.#reason = String(init?.reason ?? "");
    this.#wasClean = Boolean(init?.wasClean);
  }
  get code(): number {
    return this.#code;
  }
  get reason(): string {
    return this.#reason;
  }
  get wasClean(): boolean {
    return this.#wasClean;
  }
  override get [Symbol.toStringTag](): string {
    return "CloseEvent";
  }
}

/** Open sockets of this isolate by id (the host's ids are the same). */
const sockets = new Map<number, WebSocket>();
/** `Deno.upgradeWebSocket`'s responses, until the handler returns one. */
const upgrades = new WeakMap<Response, { socket: WebSocket; protocol: string | null }>();
let nextId = 1;
/** Set while the constructor runs for `upgradeWebSocket` (a server socket has no URL to dial). */
let accepting: { slot: number; url: string } | undefined;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export class WebSocket extends EventTarget {
  static readonly CONNECTING = CONNECTING;
  static readonly OPEN = OPEN;
  static readonly CLOSING = CLOSING;
  static readonly CLOSED = CLOSED;
  declare readonly CONNECTING: number;
  declare readonly OPEN: number;
  declare readonly CLOSING: number;
  declare readonly CLOSED: number;

  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  readonly #id = nextId++;
  readonly #slot: number;
  readonly #url: string;
  #state = CONNECTING;
  #protocol = "";
  #extensions = "";
  #binaryType: "blob" | "arraybuffer" = "blob";
  #buffered = 0;
  #origin: string | undefined;

  constructor(url: string | URL, protocols: string | string[] = []) {
    super();
    if (accepting) {
      this.#slot = accepting.slot;
      this.#url = accepting.url;
      return;
    }
    if (arguments.length === 0) throw new TypeError("WebSocket: 1 argument required, but only 0 present");
    const request = currentRequest("new WebSocket()");
    let parsed: URL;
    try {
      parsed = new URL(String(url));
    } catch {
      throw new DOMException(`WebSocket: invalid URL '${String(url)}'`, "SyntaxError");
    }
    // WebSockets §3.1: http(s) stand for ws(s); a fragment is an error.
    if (parsed.protocol === "http:") parsed.protocol = "ws:";
    else if (parsed.protocol === "https:") parsed.protocol = "wss:";
    if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
      throw new DOMException(
        `WebSocket: the URL's scheme must be ws or wss, not ${parsed.protocol}`,
        "SyntaxError",
      );
    }
    if (parsed.hash) throw new DOMException("WebSocket: the URL must not have a fragment", "SyntaxError");
    const list = typeof protocols === "string" ? [protocols] : [...protocols].map(String);
    if (list.some((p) => !TOKEN.test(p)) || new Set(list).size !== list.length) {
      throw new DOMException("WebSocket: invalid or repeated subprotocol", "SyntaxError");
    }
    this.#slot = request.slot;
    this.#url = parsed.href;
    hostSync("ws.connect", this.#slot, this.#id, this.#url, list);
    sockets.set(this.#id, this);
  }

  get url(): string {
    return this.#url;
  }
  get readyState(): number {
    return this.#state;
  }
  get protocol(): string {
    return this.#protocol;
  }
  get extensions(): string {
    return this.#extensions;
  }
  get bufferedAmount(): number {
    return this.#buffered;
  }
  get binaryType(): "blob" | "arraybuffer" {
    return this.#binaryType;
  }
  set binaryType(value: string) {
    if (value === "blob" || value === "arraybuffer") this.#binaryType = value;
  }

  send(data: string | ArrayBuffer | ArrayBufferView | Blob): void {
    if (this.#state === CONNECTING) throw new DOMException("WebSocket is not open yet", "InvalidStateError");
    const payload =
      typeof data === "string"
        ? data
        : data instanceof Blob
          ? Blob.bytesOf(data)
          : data instanceof ArrayBuffer
            ? new Uint8Array(data)
            : ArrayBuffer.isView(data)
              ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
              : String(data);
    // Closing or closed: the data is dropped, and only counted (WebSockets §3.3).
    if (this.#state !== OPEN) {
      this.#buffered += typeof payload === "string" ? utf8Encode(payload).byteLength : payload.byteLength;
      return;
    }
    hostSync("ws.send", this.#slot, this.#id, payload);
  }

  close(code?: number, reason?: string): void {
    if (code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)) {
      throw new DOMException(
        `WebSocket: the close code must be 1000 or 3000–4999, not ${code}`,
        "InvalidAccessError",
      );
    }
    const why = reason === undefined ? "" : String(reason);
    if (utf8Encode(why).byteLength > 123) {
      throw new DOMException("WebSocket: the close reason must be at most 123 bytes", "SyntaxError");
    }
    if (this.#state === CLOSING || this.#state === CLOSED) return;
    const wasOpen = this.#state === OPEN || sockets.has(this.#id);
    this.#state = CLOSING;
    if (wasOpen) hostSync("ws.close", this.#slot, this.#id, code ?? 1000, why);
  }

  /** @internal An event from the host (entry "ws"). */
  static event(id: number, kind: string, a: unknown, b: unknown, c: unknown): void {
    const socket = sockets.get(id);
    if (socket) socket.#event(kind, a, b, c);
  }

  /** @internal Forgets the sockets of a request that ended (the host closed them). */
  static drop(slot: number): void {
    for (const [id, socket] of sockets) {
      if (socket.#slot !== slot) continue;
      sockets.delete(id);
      socket.#state = CLOSED;
    }
  }

  /** @internal `Deno.upgradeWebSocket`: a server socket, opened when the host accepts. */
  static accept(request: Request, protocol: string | null): { socket: WebSocket; response: Response } {
    accepting = { slot: currentRequest("Deno.upgradeWebSocket").slot, url: request.url };
    let socket: WebSocket;
    try {
      socket = new WebSocket("");
    } finally {
      accepting = undefined;
    }
    const response = Response.fromHost(101, "Switching Protocols", [], null, "");
    upgrades.set(response, { socket, protocol });
    return { socket, response };
  }

  /** @internal The handler answered with an upgrade response: the host completes it. */
  static answer(slot: number, response: Response): void {
    const upgrade = upgrades.get(response);
    if (!upgrade) throw new TypeError("A 101 response can only come from Deno.upgradeWebSocket");
    upgrades.delete(response);
    const { socket, protocol } = upgrade;
    if (socket.#slot !== slot) throw new TypeError("This upgrade response belongs to another request");
    hostSync("ws.accept", slot, socket.#id, protocol);
    sockets.set(socket.#id, socket);
    socket.#protocol = protocol ?? "";
    // Closed by the handler before it returned the response: closed as soon as it is open.
    if (socket.#state === CLOSING) hostSync("ws.close", slot, socket.#id, 1000, "");
  }

  #event(kind: string, a: unknown, b: unknown, c: unknown): void {
    switch (kind) {
      case "open":
        if (this.#state !== CONNECTING) return;
        this.#state = OPEN;
        this.#protocol = String(a || this.#protocol);
        this.#extensions = String(b ?? "");
        this.dispatchEvent(new Event("open"));
        return;
      case "message": {
        if (this.#state !== OPEN) return;
        const data =
          typeof a === "string"
            ? a
            : this.#binaryType === "arraybuffer"
              ? (a as Uint8Array).buffer
              : new Blob([a]);
        this.dispatchEvent(
          new MessageEvent("message", { data, origin: (this.#origin ??= new URL(this.#url).origin) }),
        );
        return;
      }
      case "error":
        this.dispatchEvent(new ErrorEvent("error", { message: String(a) }));
        return;
      case "close":
        sockets.delete(this.#id);
        this.#state = CLOSED;
        this.dispatchEvent(
          new CloseEvent("close", { code: a as number, reason: String(b), wasClean: Boolean(c) }),
        );
        return;
    }
  }

  get [Symbol.toStringTag](): string {
    return "WebSocket";
  }
}

for (const [name, value] of [
  ["CONNECTING", CONNECTING],
  ["OPEN", OPEN],
  ["CLOSING", CLOSING],
  ["CLOSED", CLOSED],
] as const) {
  Object.defineProperty(WebSocket.prototype, name, { value, enumerable: true });
}

/**
 * `Deno.upgradeWebSocket(request, { protocol? })`, with Deno's checks and messages: returns the
 * socket and the 101 response the handler must return; the socket opens once it has.
 */
export function upgradeWebSocket(
  request: Request,
  options: { protocol?: string; idleTimeout?: number } = {},
): { socket: WebSocket; response: Response } {
  const upgrade = request.headers.get("upgrade");
  if (upgrade === null || upgrade.toLowerCase() !== "websocket") {
    throw new TypeError("Invalid Header: 'upgrade' header must contain 'websocket'");
  }
  const connection = request.headers.get("connection");
  if (
    connection === null ||
    !connection.split(",").some((option) => option.trim().toLowerCase() === "upgrade")
  ) {
    throw new TypeError("Invalid Header: 'connection' header must contain 'Upgrade'");
  }
  if (request.headers.get("sec-websocket-key") === null) {
    throw new TypeError("Invalid Header: 'sec-websocket-key' header must be set");
  }
  // RFC 6455 §4.1's list, with or without spaces (Deno splits on ", " only, which `ws` clients miss).
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const protocol = options?.protocol === undefined ? null : String(options.protocol);
  if (protocol !== null && !offered.includes(protocol)) {
    throw new TypeError(`Protocol '${protocol}' not in the request's protocol list (non negotiable)`);
  }
  return WebSocket.accept(request, protocol);
}

/** Entry "ws": an event of socket `id`. */
export function socketEvent(id: number, kind: string, a: unknown, b: unknown, c: unknown): void {
  WebSocket.event(id, kind, a, b, c);
}

/** What the handler's 101 answer does (serve.ts): the host completes the upgrade, or the error to fail with. */
export function acceptUpgrade(slot: number, response: Response): unknown {
  try {
    WebSocket.answer(slot, response);
    return undefined;
  } catch (error) {
    return error instanceof Error && !(error instanceof TypeError) ? new TypeError(error.message) : error;
  }
}

/** The request `slot` ended: its sockets are closed (by the host) and forgotten. */
export function dropSockets(slot: number): void {
  if (sockets.size !== 0) WebSocket.drop(slot);
}

export const websocketGlobals = { CloseEvent, WebSocket };
