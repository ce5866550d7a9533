import type { HostSocket, SocketEvents } from "./invocation.ts";
import type { GuestEntry } from "./protocol.ts";
import type { RequestState } from "./request-state.ts";

/**
 * The host's half of the guest's WebSockets (guest/websocket.ts), one table per isolate:
 * the `ws.*` ops, and the `ws` entries that bring each socket's events into the guest, for
 * the socket's own request. A socket belongs to the request that accepted it (the upgraded
 * request: `Deno.upgradeWebSocket`) or opened it (`new WebSocket`), and closes when that
 * request ends (request-state.ts).
 *
 * Each entry counts against the request's CPU budget as every entry does; a message into an
 * upgraded request starts a fresh budget, as a request does: its socket may live an hour,
 * and the CPU limit is per unit of work, not per connection (Cloudflare bills a Durable
 * Object's WebSocket messages the same way).
 */
export type SocketOp = "ws.accept" | "ws.connect" | "ws.send" | "ws.close";

export interface GuestSockets {
  op(state: RequestState, op: SocketOp, args: unknown[]): void;
}

type Enter = (state: RequestState, kind: GuestEntry, ...args: unknown[]) => void;

export function createGuestSockets(enter: Enter): GuestSockets {
  const open = new Map<number, { state: RequestState; host: HostSocket }>();

  function events(id: number, state: RequestState): SocketEvents {
    return {
      open: (protocol, extensions) => enter(state, "ws", id, "open", protocol, extensions),
      message(data) {
        if (state.upgradedSocket) state.cpuNs = 0n;
        enter(state, "ws", id, "message", data);
      },
      error: (message) => enter(state, "ws", id, "error", message),
      close(code, reason, wasClean) {
        const entry = open.get(id);
        open.delete(id);
        enter(state, "ws", id, "close", code, reason, wasClean);
        if (entry) state.socketClosed(entry.host);
      },
    };
  }

  function owned(state: RequestState, id: number): HostSocket {
    const entry = open.get(id);
    if (!entry || entry.state !== state) throw new Error("This WebSocket is not open");
    return entry.host;
  }

  return {
    op(state, op, args) {
      const id = args[0] as number;
      switch (op) {
        case "ws.accept": {
          const upgrade = state.io.upgrade;
          if (!upgrade || state.upgradedSocket) {
            throw new Error(
              "Deno.upgradeWebSocket: this request cannot be upgraded (it did not arrive as a WebSocket handshake)",
            );
          }
          if (open.has(id)) throw new Error("This WebSocket is already open");
          const host = upgrade.accept(args[1] as string | null, events(id, state));
          open.set(id, { state, host });
          state.upgraded(host, upgrade.lifetimeMs);
          return;
        }
        case "ws.connect": {
          if (!state.io.connect) throw new Error("WebSocket: outbound connections are not available here");
          if (open.has(id)) throw new Error("This WebSocket is already open");
          const host = state.io.connect(args[1] as string, args[2] as string[], events(id, state));
          open.set(id, { state, host });
          state.adopt(host);
          return;
        }
        case "ws.send":
          owned(state, id).send(args[1] as string | Uint8Array);
          return;
        case "ws.close":
          owned(state, id).close(args[1] as number, args[2] as string);
          return;
      }
    },
  };
}
