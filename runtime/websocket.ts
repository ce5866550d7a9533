import { isIP } from "node:net";
import WebSocket from "ws";
import { AppError, BlockedAddressError, guardedLookup, isPrivateAddress } from "../core/index.ts";
import type { HostSocket, SocketEvents } from "../sandbox/index.ts";

/**
 * The network side of functions' WebSockets, with the `ws` package: an accepted upgrade
 * (the API completes the handshake: api/invocation/upgrade.ts) or a socket a function opens,
 * tied to the sandbox's `SocketEvents` and handed to it as a `HostSocket`.
 */

/** What the API hands the invoker for a request that arrived as a WebSocket upgrade. */
export interface UpgradeHandshake {
  /** Writes the 101 with the subprotocol the function chose (null: none) and returns the socket; throws when the client is gone. */
  accept(protocol: string | null): WebSocket;
}

export interface SocketLimits {
  /** Largest message either way: a larger one from the peer closes the socket with 1009 (`ws`'s `maxPayload`). */
  maxMessageBytes: number;
}

/**
 * Ties an open (or opening) `ws` socket to the sandbox's events. Events never fire during
 * this call (the sandbox registers the socket first). `closed` runs once, when it closes.
 */
export function linkSocket(
  ws: WebSocket,
  events: SocketEvents,
  limits: SocketLimits,
  closed?: () => void,
): HostSocket {
  ws.binaryType = "nodebuffer";
  if (ws.readyState === WebSocket.OPEN) queueMicrotask(() => events.open(ws.protocol, ws.extensions));
  else ws.once("open", () => events.open(ws.protocol, ws.extensions));
  ws.on("message", (data: Buffer | Buffer[], isBinary: boolean) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : data;
    // A copy of exactly its bytes: a Buffer may be a view of a larger one, which would cross whole.
    events.message(isBinary ? new Uint8Array(bytes) : bytes.toString("utf8"));
  });
  ws.on("error", (error: Error) => events.error(error.message));
  ws.once("close", (code: number, reason: Buffer) => {
    closed?.();
    events.close(code, reason.toString("utf8"), code !== 1006);
  });
  return {
    send(data) {
      const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
      if (size > limits.maxMessageBytes) {
        throw new Error(
          `WebSocket.send: the message is larger than ${limits.maxMessageBytes} bytes (TESSERA_FUNCTION_WS_MAX_MESSAGE_BYTES)`,
        );
      }
      if (ws.readyState === WebSocket.OPEN) ws.send(data);
    },
    close(code, reason) {
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else if (ws.readyState === WebSocket.OPEN) ws.close(code, reason);
    },
  };
}

export interface ConnectOptions extends SocketLimits {
  allowPrivateTargets: boolean;
  userAgent: string;
  /** The opening handshake's deadline. */
  handshakeTimeoutMs: number;
}

/**
 * `new WebSocket(url)` in a function: dialled through the same address guard as its `fetch`
 * (runtime/guarded-http.ts): the guarded lookup judges the address a name resolves to when
 * connecting, an IP literal is judged before. A refusal reaches the function as the socket's
 * `error` event (with the reason) and a `close` with 1006, as a failed connection does.
 */
export function connectSocket(
  url: string,
  protocols: string[],
  events: SocketEvents,
  options: ConnectOptions,
): HostSocket {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new AppError("invalid_request", `WebSocket: invalid URL '${url.slice(0, 200)}'`);
  }
  if (target.protocol !== "ws:" && target.protocol !== "wss:") {
    throw new AppError("invalid_request", `WebSocket: unsupported scheme ${target.protocol}`);
  }
  const literal = target.hostname.replace(/^\[|\]$/g, "");
  if (!options.allowPrivateTargets && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return refused(events, refusal(new BlockedAddressError(target.hostname, literal)));
  }
  const ws = new WebSocket(target, protocols, {
    headers: { "user-agent": options.userAgent },
    handshakeTimeout: options.handshakeTimeoutMs,
    maxPayload: options.maxMessageBytes,
    // Compression stays off: a small frame must not inflate into a large one on the host.
    perMessageDeflate: false,
    followRedirects: false,
    ...(options.allowPrivateTargets ? {} : { lookup: guardedLookup }),
  });
  // The guard's refusal, worded for the function (the rest as `ws` words them).
  const wordedEvents: SocketEvents = {
    ...events,
    error: (message) => events.error(refusal(message)),
  };
  return linkSocket(ws, wordedEvents, options);
}

function refusal(error: Error | string): string {
  const message = typeof error === "string" ? error : error.message;
  return /private|loopback|blocked|not allowed/i.test(message)
    ? `WebSocket: ${message} (private targets are refused unless the operator sets TESSERA_ALLOW_PRIVATE_TARGETS)`
    : `WebSocket: ${message}`;
}

/** A socket refused before dialling: `error` and `close` (1006) follow, never during this call. */
function refused(events: SocketEvents, message: string): HostSocket {
  setImmediate(() => {
    events.error(message);
    events.close(1006, "", false);
  });
  return { send() {}, close() {} };
}
