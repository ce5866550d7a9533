import { ReadableStream, type ReadableStreamDefaultController } from "node:stream/web";
import { AppError } from "../core/index.ts";
import type { HostSocket, InvocationIO, InvocationResponse } from "./invocation.ts";
import type { SandboxLimits } from "./limits.ts";
import type { GuestEntry } from "./protocol.ts";

/**
 * The host's half of one request: its response promise, its body stream, its timers,
 * its CPU count and its end. A request ends ("finished") when the body is done and the
 * guest reports no pending `waitUntil`, when its wall time runs out, or when it fails.
 */
export interface RequestState {
  readonly slot: number;
  readonly io: InvocationIO;
  /** The request's context object (`InvocationRequest.context`): the guest may ask for its JSON again. */
  readonly context: object;
  /** The guest's timers by id, made with its first (most requests set none). */
  timers: Map<number, NodeJS.Timeout> | undefined;
  readonly response: Promise<InvocationResponse>;
  cpuNs: bigint;
  readonly ended: boolean;
  respond(
    status: number,
    statusText: string,
    headers: Array<[string, string]>,
    /** The whole body, `true` when a stream follows chunk by chunk, or null. */
    body: Uint8Array | string | true | null,
    guestDone: boolean,
  ): void;
  chunk(bytes: Uint8Array | null): void;
  bodyError(message: string): void;
  idle(): void;
  /** Fails the request: rejects its response, or errors its body if it already answered. */
  fail(error: AppError): void;
  /**
   * The guest accepted a WebSocket upgrade (sandbox/socket.ts): the request answers 101 and
   * its socket is its body: it ends when the socket closes, or closes it (1001) after
   * `lifetimeMs` (0: the wall-time limit runs on and fails it, as any request).
   */
  upgraded(socket: HostSocket, lifetimeMs: number): void;
  /** Whether the request is an accepted WebSocket upgrade. */
  readonly upgradedSocket: boolean;
  /** A WebSocket the request opened: closed (1001) when the request ends, 1011 when it fails. */
  adopt(socket: HostSocket): void;
  /** A socket of the request closed; its upgraded one ends it. */
  socketClosed(socket: HostSocket): void;
}

/** What a request's state reports to its isolate host: one per host, shared by its requests. */
export interface RequestOwner {
  enter(state: RequestState, kind: GuestEntry, ...args: unknown[]): void;
  /** `guestDone`: the guest already forgot the request (it said so when it answered). */
  ended(state: RequestState, guestDone: boolean): void;
}

export interface RequestStateOptions {
  slot: number;
  io: InvocationIO;
  limits: SandboxLimits;
  owner: RequestOwner;
  context: object;
}

export function createRequestState(options: RequestStateOptions): RequestState {
  return new HostRequest(options);
}

/** An upgraded request's sockets (made on its first socket), and how they close when it ends. */
interface RequestSockets {
  all: Set<HostSocket>;
  upgrade: HostSocket | undefined;
  code: number;
  reason: string;
}

function lifetimeOver(state: HostRequest): void {
  state.closeUpgrade(1001, "the connection reached its maximum lifetime");
}

function wallTimeout(state: HostRequest): void {
  state.fail(
    new AppError("function_timeout", `The function did not answer within ${state.limits.wallTimeLimitMs} ms`),
  );
}

/** One object per request, its behaviour on the prototype: nothing else is made per request but its two promises. */
class HostRequest implements RequestState {
  readonly slot: number;
  readonly io: InvocationIO;
  readonly limits: SandboxLimits;
  readonly context: object;
  timers: Map<number, NodeJS.Timeout> | undefined;
  readonly response: Promise<InvocationResponse>;
  cpuNs = 0n;
  #owner: RequestOwner;
  #finished: Promise<void>;
  #resolveResponse!: (response: InvocationResponse) => void;
  #rejectResponse!: (error: unknown) => void;
  #resolveFinished!: () => void;
  #wallTimer: NodeJS.Timeout;
  #answered = false;
  #bodyDone = false;
  #guestIdle = false;
  #guestDone = false;
  #ended = false;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #pulled: (() => void) | undefined;
  #sockets: RequestSockets | undefined;

  constructor(options: RequestStateOptions) {
    this.slot = options.slot;
    this.io = options.io;
    this.limits = options.limits;
    this.context = options.context;
    this.#owner = options.owner;
    this.response = new Promise<InvocationResponse>((resolve, reject) => {
      this.#resolveResponse = resolve;
      this.#rejectResponse = reject;
    });
    this.#finished = new Promise<void>((resolve) => (this.#resolveFinished = resolve));
    this.#wallTimer = setTimeout(wallTimeout, options.limits.wallTimeLimitMs, this);
  }

  get ended(): boolean {
    return this.#ended;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#wallTimer);
    if (this.timers) {
      for (const timer of this.timers.values()) clearTimeout(timer);
      this.timers.clear();
    }
    if (this.#sockets) closeAll(this.#sockets);
    this.#owner.ended(this, this.#guestDone);
    this.#resolveFinished();
  }

  #maybeEnd(): void {
    if (this.#answered && this.#bodyDone && this.#guestIdle) this.#end();
  }

  #bodyStream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.#controller = c;
        },
        pull: () =>
          new Promise<void>((resolve) => {
            this.#pulled = resolve;
            this.#owner.enter(this, "pull");
          }),
        cancel: (reason) => {
          this.#bodyDone = true;
          this.#owner.enter(
            this,
            "cancel",
            reason instanceof Error ? reason.message : String(reason ?? "cancelled"),
          );
          this.#maybeEnd();
        },
      },
      { highWaterMark: 0 },
    );
  }

  #settlePull(): void {
    const resolve = this.#pulled;
    this.#pulled = undefined;
    resolve?.();
  }

  respond(
    status: number,
    statusText: string,
    headers: Array<[string, string]>,
    body: Uint8Array | string | true | null,
    done: boolean,
  ): void {
    if (this.#answered || this.#ended) return;
    this.#answered = true;
    if (done) this.#guestIdle = this.#guestDone = true;
    // A body the guest had whole crosses as bytes or text: a web stream costs more than a small request.
    let payload: ReadableStream<Uint8Array> | Uint8Array | string | null = null;
    if (body === true) payload = this.#bodyStream();
    else {
      this.#bodyDone = true;
      if (body !== null && body.length > 0) payload = body;
    }
    this.#resolveResponse({ status, statusText, headers, body: payload, finished: this.#finished });
    this.#maybeEnd();
  }

  chunk(bytes: Uint8Array | null): void {
    if (!this.#controller || this.#bodyDone) return;
    if (bytes) this.#controller.enqueue(bytes);
    else {
      this.#bodyDone = true;
      this.#controller.close();
    }
    this.#settlePull();
    this.#maybeEnd();
  }

  bodyError(message: string): void {
    if (!this.#controller || this.#bodyDone) return;
    this.#bodyDone = true;
    this.io.log("error", `Uncaught (in response body) ${message}`);
    this.#controller.error(
      new AppError("function_failed", `The function's response body failed: ${message.split("\n")[0]}`),
    );
    this.#settlePull();
    this.#maybeEnd();
  }

  idle(): void {
    this.#guestIdle = true;
    this.#maybeEnd();
  }

  // WebSockets (sandbox/socket.ts): an upgraded request's socket is its body.

  get upgradedSocket(): boolean {
    return this.#sockets?.upgrade !== undefined;
  }

  upgraded(socket: HostSocket, lifetimeMs: number): void {
    if (this.#answered || this.#ended) {
      socket.close(1011, "the request had already answered");
      return;
    }
    this.#answered = true;
    this.adopt(socket);
    this.#sockets!.upgrade = socket;
    if (lifetimeMs > 0) {
      clearTimeout(this.#wallTimer);
      this.#wallTimer = setTimeout(lifetimeOver, lifetimeMs, this);
    }
    this.#resolveResponse({
      status: 101,
      statusText: "Switching Protocols",
      headers: [],
      body: null,
      finished: this.#finished,
    });
  }

  adopt(socket: HostSocket): void {
    this.#sockets ??= { all: new Set(), upgrade: undefined, code: 1001, reason: "the request ended" };
    this.#sockets.all.add(socket);
  }

  socketClosed(socket: HostSocket): void {
    const sockets = this.#sockets;
    if (!sockets?.all.delete(socket) || socket !== sockets.upgrade || this.#ended) return;
    this.#bodyDone = true;
    this.#maybeEnd();
  }

  closeUpgrade(code: number, reason: string): void {
    this.#sockets?.upgrade?.close(code, reason);
  }

  fail(error: AppError): void {
    if (this.#ended) return;
    if (!this.#answered) {
      this.#answered = true;
      this.#bodyDone = true;
      this.#rejectResponse(error);
    } else if (!this.#bodyDone && this.#controller) {
      this.#bodyDone = true;
      this.#controller.error(error);
      this.#settlePull();
    }
    if (this.#sockets) {
      // A fault of the function is the server's error (1011); its time running out is a going away.
      this.#sockets.code = error.code === "function_timeout" ? 1001 : 1011;
      this.#sockets.reason =
        error.code === "function_timeout" ? "the function's time ran out" : "the function failed";
    }
    // A request that failed is over, whatever it still had pending (waitUntil included).
    this.#end();
  }
}

function closeAll(sockets: RequestSockets): void {
  for (const socket of sockets.all) socket.close(sockets.code, sockets.reason);
  sockets.all.clear();
}
