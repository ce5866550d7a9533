import { currentRequest, dropCalls, hostCall, hostSync, requests, type RequestSlot } from "./bridge.ts";
import { bodyStream, isUsed } from "./body.ts";
import { cwd, denoInspect, errors, exit } from "./deno.ts";
import { fileSystem } from "./files.ts";
import { AbortController, type AbortSignal } from "./events.ts";
import { platformFetch } from "./fetch.ts";
import { Headers } from "./headers.ts";
import { Request, Response } from "./http.ts";
import { dropTimers } from "./timers.ts";
import { acceptUpgrade, dropSockets, upgradeWebSocket } from "./websocket.ts";
import type { ReadableStreamDefaultReader } from "./streams.ts";

/**
 * The three handler styles (ARCHITECTURE.md "Edge functions") and the per-request `ctx`.
 * A request is one slot; the platform answers for it with the slot it was given,
 * never with the "current" one, so a response always reaches its own request.
 */
type Handler = (request: Request, ...rest: unknown[]) => unknown;

export const MODULE_GLOBAL = "__tessera_module";
const ENGINES = ["finance", "growth", "talent", "sync"] as const;

let served: { handler: Handler; onError?: (error: unknown) => unknown } | undefined;
let resolved: ((request: Request, ctx: unknown) => unknown) | undefined;
let env: Record<string, string> = {};

interface Slot extends RequestSlot {
  reader?: ReadableStreamDefaultReader<unknown>;
  /** `ctx.snapshot`, read from the host on first use. */
  snapshot?: { value: unknown };
  idleSent: boolean;
  /** Made with the request's signal, on first use. */
  abort: AbortController | undefined;
  /** Why the client went away, if it did. */
  cancelled?: Error;
  /** The id of what `ctx` is made of, when it is made on first use (`Deno.serve` handlers reach it as `Tessera`). */
  context: number;
  requestId: string;
}

export function setEnv(values: Record<string, string>): void {
  env = { ...values };
}

/** Deno.serve(handler) | Deno.serve(options, handler) | Deno.serve({ handler, ... }). */
function serve(first: unknown, second?: unknown) {
  const options = (typeof first === "function" ? {} : (first ?? {})) as {
    handler?: Handler;
    onError?: (e: unknown) => unknown;
    onListen?: (addr: unknown) => void;
  };
  const handler = (
    typeof first === "function" ? first : typeof second === "function" ? second : options.handler
  ) as Handler | undefined;
  if (typeof handler !== "function") throw new TypeError("Deno.serve needs a handler function");
  if (served) throw new Error("Deno.serve was already called: one handler per function");
  served = { handler, ...(typeof options.onError === "function" ? { onError: options.onError } : {}) };
  const addr = { transport: "tcp", hostname: "0.0.0.0", port: 443 };
  return {
    addr,
    finished: new Promise<void>(() => {}),
    ref() {},
    unref() {},
    async shutdown() {},
  };
}

export const Deno = Object.freeze({
  serve,
  env: Object.freeze({
    get: (name: string): string | undefined =>
      Object.prototype.hasOwnProperty.call(env, String(name)) ? env[String(name)] : undefined,
    has: (name: string): boolean => Object.prototype.hasOwnProperty.call(env, String(name)),
    toObject: (): Record<string, string> => ({ ...env }),
    set: (name: string, value: string): void => void (env[String(name)] = String(value)),
    delete: (name: string): void => void delete env[String(name)],
  }),
  get errors() {
    return errors();
  },
  inspect: denoInspect,
  upgradeWebSocket,
  cwd,
  exit,
  // readFile, readTextFile, stat, readDir, realPath (and their Sync forms) over the deployed files.
  ...fileSystem,
  version: Object.freeze({ deno: "2.0.0-tessera", v8: "", typescript: "" }),
  build: Object.freeze({ target: "tessera", arch: "x86_64", os: "linux", vendor: "tessera" }),
});

/**
 * A top level that awaits (sandbox/program.ts, `TOP_LEVEL_HOOK`): what its promise came to. The
 * program's script hands the promise over as it starts; by the "boot" entry it has settled, or it
 * never will (the host waited for the calls it could be waiting on).
 */
let topLevel:
  | { settled: false }
  | { settled: true; ok: true; exports: unknown }
  | { settled: true; ok: false; error: unknown }
  | undefined;

export function awaitTopLevel(promise: Promise<unknown>): undefined {
  topLevel = { settled: false };
  promise.then(
    (exports) => (topLevel = { settled: true, ok: true, exports }),
    (error: unknown) => (topLevel = { settled: true, ok: false, error }),
  );
  return undefined;
}

/** Entry "boot": finds the handler the program declared; returns an error message or "". */
export function resolveHandler(declared: unknown): string {
  let module = declared;
  if (topLevel) {
    if (!topLevel.settled) {
      // Deno's words for the same: "Top-level await promise never resolved".
      return (
        "the function's top level awaits a promise that never settled while it started " +
        "(it may await its own modules, files, WebAssembly and crypto.subtle there; fetch, timers and other I/O belong in a request)"
      );
    }
    if (!topLevel.ok) throw topLevel.error;
    module = topLevel.exports;
  }
  if (served) {
    const { handler, onError } = served;
    resolved = (request) => {
      const info = {
        remoteAddr: { transport: "tcp", hostname: "0.0.0.0", port: 0 },
        completed: new Promise(() => {}),
      };
      if (!onError) return handler(request, info);
      try {
        return Promise.resolve(handler(request, info)).catch(onError);
      } catch (error) {
        return onError(error);
      }
    };
    return "";
  }
  const exported = (module as { default?: unknown } | undefined)?.default;
  if (typeof exported === "function") {
    resolved = (request, ctx) => (exported as Handler)(request, ctx);
    return "";
  }
  if (exported && typeof (exported as { fetch?: unknown }).fetch === "function") {
    resolved = (request, ctx) => (exported as { fetch: Handler }).fetch(request, Deno.env.toObject(), ctx);
    return "";
  }
  return "the function has no handler: call Deno.serve(handler), or export default a function or { fetch }";
}

function engine(name: string) {
  return Object.freeze({
    get: (key: string) => hostCall("ctx.engines", "call", { op: "engines.get", args: { engine: name, key } }),
    set: (key: string, value: unknown) =>
      hostCall("ctx.engines", "call", { op: "engines.set", args: { engine: name, key, value } }),
    delete: (key: string) =>
      hostCall("ctx.engines", "call", { op: "engines.delete", args: { engine: name, key } }),
    list: (options: { prefix?: string; cursor?: string; limit?: number } = {}) =>
      hostCall("ctx.engines", "call", { op: "engines.list", args: { engine: name, ...options } }),
  });
}

/**
 * `ctx.engines` and `ctx.platform` hold no per-request state (their calls belong to the
 * current request, as every host call does) and are frozen all the way down, so one of
 * each serves every request of the isolate: building them was most of a trivial
 * request's work in the guest.
 */
let shared: { engines: object; platform: object } | undefined;

/** A base class whose constructor returns its argument: see `CtxRequest`. */
class ReturnsItsArgument {
  constructor(target: object) {
    return target;
  }
}

/**
 * Each ctx's request, what the shared `snapshot` getter and `waitUntil` act for, in a private
 * field of the ctx itself. `new CtxRequest(ctx, state)` adds the field to `ctx`: a subclass's
 * `this` is whatever its base constructor returned, and its fields are added to that object
 * (ECMAScript's "return override"). The ctx stays a plain object and the function cannot see
 * the field. It replaced a WeakMap from ctx to request: each request's new key in that
 * long-lived WeakMap took V8's ephemeron write barrier, and every young-generation collection
 * then walked the table. The guest's JavaScript was 16.3 % of a trivial invocation's main
 * thread with it, 11.1 % without (perf; bench/HISTORY.md, "A ctx without a WeakMap").
 */
class CtxRequest extends ReturnsItsArgument {
  readonly #state: Slot;

  constructor(ctx: object, state: Slot) {
    super(ctx);
    this.#state = state;
  }

  static stateOf(this: void, value: unknown): Slot | undefined {
    return typeof value === "object" && value !== null && #state in value ? value.#state : undefined;
  }
}

/** The request a ctx belongs to; a method called detached (`const { waitUntil } = ctx`) acts for the current one. */
function requestOf(ctx: unknown): Slot {
  const state = CtxRequest.stateOf(ctx) ?? requests.current;
  if (!state) throw new Error("ctx is used outside of its request");
  return state as Slot;
}

/** `ctx.snapshot`'s getter, shared (named as an accessor's getter is). */
function get(this: unknown): unknown {
  const state = requestOf(this);
  return (state.snapshot ??= { value: hostSync("snapshot", state.slot) }).value;
}

/** `ctx.waitUntil`, shared (named as the function of a `value` descriptor is). */
function value(this: unknown, promise: unknown): void {
  const state = requestOf(this);
  state.waitUntil++;
  const done = () => {
    state.waitUntil--;
    maybeIdle(state);
  };
  Promise.resolve(promise).then(done, (error: unknown) => {
    hostSync("log", state.slot, "error", `Uncaught (in waitUntil) ${describe(error)}`);
    done();
  });
}

/** Descriptors made once: `defineProperties` with a descriptor map converted five each request. */
const SNAPSHOT: PropertyDescriptor = { enumerable: true, configurable: true, get };
const WAIT_UNTIL: PropertyDescriptor = { value };
/** A no-op with the same `.name` ("value") as `waitUntil`. */
const PASS_THROUGH: PropertyDescriptor = { value: () => {} };

/**
 * The host's contexts by the id it gave each (sandbox/isolate.ts), parsed once each: an isolate
 * serves one function, whose callers are few, and one caller's requests share a context. Its
 * text comes with the first request that names its id (kept as text until a ctx needs it), or
 * from the host again (op "context") once forgotten here. A request's ctx copies the parsed
 * fields (JSON values, so a plain deep copy), several times cheaper than parsing the text
 * again, and still the request's own to change.
 */
const MAX_CONTEXTS = 16;
const contexts = new Map<number, Record<string, unknown> | string>();

function rememberContext(id: number, value: Record<string, unknown> | string): void {
  if (!contexts.has(id) && contexts.size >= MAX_CONTEXTS) contexts.clear();
  contexts.set(id, value);
}

function contextFields(state: Slot): Record<string, unknown> {
  let fields = contexts.get(state.context);
  if (typeof fields !== "object") {
    fields = JSON.parse(fields ?? (hostSync("context", state.slot) as string)) as Record<string, unknown>;
    rememberContext(state.context, fields);
  }
  return fields;
}

function copyJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = copyJson((value as Record<string, unknown>)[key]);
    if (key === "__proto__")
      Object.defineProperty(copy, key, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = field;
  }
  return copy;
}

/**
 * `ctx`: the context's own fields (from the host's JSON, `user` first), `request_id`, then
 * a `snapshot` getter, `engines` and `platform`, and the hidden `waitUntil` and
 * `passThroughOnException`, frozen. The functions are shared by every request of the
 * isolate (each finds its request through the ctx it is called on), so a request makes
 * its fields' copies and no closures.
 */
function makeCtx(state: Slot): Record<string, unknown> {
  shared ??= {
    engines: Object.freeze(Object.fromEntries(ENGINES.map((name) => [name, engine(name)]))),
    platform: Object.freeze({ fetch: platformFetch }),
  };
  const ctx = copyJson(contextFields(state)) as Record<string, unknown>;
  ctx.user ??= null;
  ctx.request_id = state.requestId;
  Object.defineProperty(ctx, "snapshot", SNAPSHOT);
  ctx.engines = shared.engines;
  ctx.platform = shared.platform;
  Object.defineProperty(ctx, "waitUntil", WAIT_UNTIL);
  Object.defineProperty(ctx, "passThroughOnException", PASS_THROUGH);
  new CtxRequest(ctx, state);
  return Object.freeze(ctx);
}

/** The `Tessera` global: the ctx of the current request, made on first use. */
export function currentCtx(): unknown {
  const state = currentRequest("Tessera") as Slot;
  return (state.ctx ??= makeCtx(state));
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  try {
    return `${typeof error === "string" ? error : JSON.stringify(error)}`;
  } catch {
    return String(error);
  }
}

function maybeIdle(state: Slot): void {
  if (state.responded && state.waitUntil === 0 && !state.idleSent && requests.get(state.slot) === state) {
    state.idleSent = true;
    hostSync("idle", state.slot);
  }
}

function fail(state: Slot, error: unknown): void {
  if (state.responded) return;
  state.responded = true;
  hostSync("fail", state.slot, describe(error));
  maybeIdle(state);
}

function respond(state: Slot, response: unknown): void {
  if (state.responded) return;
  if (!(response instanceof Response) || Response.isError(response)) {
    const what = response instanceof Response ? "Response.error()" : Object.prototype.toString.call(response);
    fail(state, new TypeError(`The handler must return a Response (or a promise of one), not ${what}`));
    return;
  }
  const status = response.status;
  if (status === 101) {
    // Deno.upgradeWebSocket's answer (websocket.ts): the request lives on as its socket.
    const refused = acceptUpgrade(state.slot, response);
    if (refused) fail(state, refused);
    else {
      state.responded = true;
      maybeIdle(state);
    }
    return;
  }
  const body = response.bodyState();
  if (isUsed(body)) {
    fail(state, new TypeError("The handler returned a Response whose body was already used"));
    return;
  }
  // Known content crosses whole (text as a string: the host writes it as UTF-8); `true` says
  // a stream follows, chunk by chunk.
  let payload: Uint8Array | string | true | null = null;
  if (body.source !== null) payload = body.source;
  else if (body.stream) {
    state.reader = bodyStream(body)!.getReader();
    payload = true;
  }
  state.responded = true;
  // Nothing more to come (content known, no waitUntil): say so now and forget the request,
  // which spares the host an "idle" call and an "end" entry on the common path.
  const done = payload !== true && state.waitUntil === 0;
  if (done) {
    state.idleSent = true;
    endRequest(state.slot);
  }
  const headers = JSON.stringify(Headers.toList(response.headers));
  if (done && state === answering && !(payload instanceof Uint8Array)) {
    answer = `${JSON.stringify([status, response.statusText])}\n${headers}\n${payload ?? ""}`;
    return;
  }
  hostSync("respond", state.slot, status, response.statusText, headers, payload, done);
  if (!done) maybeIdle(state);
}

/**
 * The request whose handler is running inside its own "request" entry, and the answer it gave
 * there, if any. A handler that returns its Response at once (not a promise) and is done with
 * the request answers as the entry's return value rather than through a "respond" call: the
 * host's `answerText` (sandbox/protocol.ts) reads the same message from one string, the JSON of
 * `[status, statusText]`, a newline, the headers' JSON, a newline, the text body. An
 * isolated-vm call back into the host costs ~2 µs of the service's main thread; the return value
 * crosses with the entry (bench/README.md, function-invoke). Bytes, streams and `waitUntil` take
 * the "respond" call.
 */
let answering: Slot | undefined;
let answer: string | undefined;

/**
 * Entry "request": its head (the JSON of `[method, url, requestId, contextId]`, a newline, the
 * headers' JSON: `requestHead` in sandbox/isolate.ts), its body, and its context's JSON when
 * this is the first request to name that context.
 */
export function startRequest(
  slot: number,
  head: string,
  body: Uint8Array | null,
  contextJson: string | undefined,
): string | undefined {
  const cut = head.indexOf("\n");
  const [method, url, requestId, context] = JSON.parse(head.slice(0, cut)) as [
    string,
    string,
    string,
    number,
  ];
  const headers = head.slice(cut + 1);
  if (contextJson !== undefined) rememberContext(context, contextJson);
  const state: Slot = {
    slot,
    abort: undefined,
    responded: false,
    waitUntil: 0,
    ctx: undefined,
    idleSent: false,
    context,
    requestId,
  };
  // A `Deno.serve` handler takes no ctx: it reaches it as `Tessera`, if at all, and it is made then.
  if (!served) state.ctx = makeCtx(state);
  requests.add(state);
  requests.enter(slot);
  if (!resolved) {
    fail(state, new Error("the function has no handler"));
    return;
  }
  let result: unknown;
  try {
    result = resolved(
      Request.fromHost(method, url, headers, body, () => signalOf(state)),
      state.ctx,
    );
  } catch (error) {
    fail(state, error);
    return;
  }
  if (result instanceof Response) {
    answering = state;
    try {
      respond(state, result);
      return answer;
    } finally {
      answering = answer = undefined;
    }
  }
  if (result && typeof (result as Promise<unknown>).then === "function") {
    (result as Promise<unknown>).then(
      (value) => respond(state, value),
      (error: unknown) => fail(state, error),
    );
  } else respond(state, result);
}

/** Entry "pull": the host wants the next chunk of the response body. */
export function pull(slot: number): void {
  const state = requests.get(slot) as Slot | undefined;
  const reader = state?.reader;
  if (!state || !reader) return;
  reader.read().then(
    ({ done, value }) => {
      if (done) hostSync("chunk", slot, null);
      else if (value instanceof Uint8Array) hostSync("chunk", slot, value);
      else {
        const error = new TypeError("A response body stream must yield Uint8Array chunks");
        void reader.cancel(error);
        hostSync("body.error", slot, describe(error));
      }
    },
    (error: unknown) => hostSync("body.error", slot, describe(error)),
  );
}

/** The request's signal, made on first use (aborted already if the client went away before). */
function signalOf(state: Slot): AbortSignal {
  const controller = (state.abort ??= new AbortController());
  if (state.cancelled && !controller.signal.aborted) controller.abort(state.cancelled);
  return controller.signal;
}

/** Entry "cancel": the client went away; the body stream is cancelled, the request's signal aborted. */
export function cancel(slot: number, reason: string): void {
  const state = requests.get(slot) as Slot | undefined;
  if (!state) return;
  state.cancelled = new Error(reason);
  state.abort?.abort(state.cancelled);
  if (state.reader) void state.reader.cancel(reason).catch(() => {});
}

/** Entry "end": the host is done with the request; forget it. */
export function endRequest(slot: number): void {
  requests.delete(slot);
  dropTimers(slot);
  dropCalls(slot);
  dropSockets(slot);
}
