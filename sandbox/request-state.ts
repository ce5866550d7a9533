import { ReadableStream, type ReadableStreamDefaultController } from "node:stream/web";
import { AppError } from "../core/index.ts";
import type { InvocationIO, InvocationResponse } from "./invocation.ts";
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
  readonly timers: Map<number, NodeJS.Timeout>;
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
}

export interface RequestStateOptions {
  slot: number;
  io: InvocationIO;
  limits: SandboxLimits;
  enter(kind: GuestEntry, ...args: unknown[]): void;
  /** `guestDone`: the guest already forgot the request (it said so when it answered). */
  onEnd(guestDone: boolean): void;
}

export function createRequestState(options: RequestStateOptions): RequestState {
  const { slot, io, limits } = options;
  let resolveResponse!: (response: InvocationResponse) => void;
  let rejectResponse!: (error: unknown) => void;
  const response = new Promise<InvocationResponse>((resolve, reject) => {
    resolveResponse = resolve;
    rejectResponse = reject;
  });
  let resolveFinished!: () => void;
  const finished = new Promise<void>((resolve) => (resolveFinished = resolve));
  let answered = false;
  let bodyDone = false;
  let guestIdle = false;
  let guestDone = false;
  let ended = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let pulled: (() => void) | undefined;

  const end = () => {
    if (ended) return;
    ended = true;
    clearTimeout(wallTimer);
    for (const timer of state.timers.values()) clearTimeout(timer);
    state.timers.clear();
    options.onEnd(guestDone);
    resolveFinished();
  };
  const maybeEnd = () => {
    if (answered && bodyDone && guestIdle) end();
  };
  const wallTimer = setTimeout(() => {
    state.fail(
      new AppError("function_timeout", `The function did not answer within ${limits.wallTimeLimitMs} ms`),
    );
  }, limits.wallTimeLimitMs);

  const bodyStream = () =>
    new ReadableStream<Uint8Array>(
      {
        start(c) {
          controller = c;
        },
        pull() {
          return new Promise<void>((resolve) => {
            pulled = resolve;
            options.enter("pull");
          });
        },
        cancel(reason) {
          bodyDone = true;
          options.enter("cancel", reason instanceof Error ? reason.message : String(reason ?? "cancelled"));
          maybeEnd();
        },
      },
      { highWaterMark: 0 },
    );

  const settlePull = () => {
    const resolve = pulled;
    pulled = undefined;
    resolve?.();
  };

  const state: RequestState = {
    slot,
    io,
    timers: new Map(),
    response,
    cpuNs: 0n,
    get ended() {
      return ended;
    },
    respond(status, statusText, headers, body, done) {
      if (answered || ended) return;
      answered = true;
      if (done) guestIdle = guestDone = true;
      // A body the guest had whole crosses as bytes or text: a web stream costs more than a small request.
      let payload: ReadableStream<Uint8Array> | Uint8Array | string | null = null;
      if (body === true) payload = bodyStream();
      else {
        bodyDone = true;
        if (body !== null && body.length > 0) payload = body;
      }
      resolveResponse({ status, statusText, headers, body: payload, finished });
      maybeEnd();
    },
    chunk(bytes) {
      if (!controller || bodyDone) return;
      if (bytes) controller.enqueue(bytes);
      else {
        bodyDone = true;
        controller.close();
      }
      settlePull();
      maybeEnd();
    },
    bodyError(message) {
      if (!controller || bodyDone) return;
      bodyDone = true;
      io.log("error", `Uncaught (in response body) ${message}`);
      controller.error(
        new AppError("function_failed", `The function's response body failed: ${message.split("\n")[0]}`),
      );
      settlePull();
      maybeEnd();
    },
    idle() {
      guestIdle = true;
      maybeEnd();
    },
    fail(error) {
      if (ended) return;
      if (!answered) {
        answered = true;
        bodyDone = true;
        rejectResponse(error);
      } else if (!bodyDone && controller) {
        bodyDone = true;
        controller.error(error);
        settlePull();
      }
      // A request that failed is over, whatever it still had pending (waitUntil included).
      end();
    },
  };
  return state;
}
