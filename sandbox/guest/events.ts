import { DOMException } from "./dom-exception.ts";
import { clearTimeout, setTimeout } from "./timers.ts";

/** DOM Standard §2: Event and EventTarget, without a tree (an event's path is its target alone). */
/** What every event's constructor reads (DOM §2.2 EventInit). */
export interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

/** An event's state and flags (DOM §2.2), read and written by dispatch (§2.9) in this module only. */
interface EventState {
  type: string;
  bubbles: boolean;
  cancelable: boolean;
  composed: boolean;
  target: EventTarget | null;
  currentTarget: EventTarget | null;
  phase: number;
  stopPropagation: boolean;
  stopImmediatePropagation: boolean;
  canceled: boolean;
  inPassiveListener: boolean;
  dispatching: boolean;
  trusted: boolean;
}

const PHASES = { NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 } as const;

let stateOf: (event: Event) => EventState;
/** `isTrusted` is [LegacyUnforgeable]: an own accessor of every event, all sharing one getter. */
let isTrustedGetter: (this: Event) => boolean;

export class Event {
  declare static readonly NONE: 0;
  declare static readonly CAPTURING_PHASE: 1;
  declare static readonly AT_TARGET: 2;
  declare static readonly BUBBLING_PHASE: 3;
  declare readonly NONE: 0;
  declare readonly CAPTURING_PHASE: 1;
  declare readonly AT_TARGET: 2;
  declare readonly BUBBLING_PHASE: 3;
  declare readonly isTrusted: boolean;
  readonly #state: EventState;
  readonly #timeStamp = Date.now();

  static {
    stateOf = (event) => event.#state;
    isTrustedGetter = function (this: Event) {
      return this.#state.trusted;
    };
  }

  constructor(type: string, init: EventInit = {}) {
    if (arguments.length === 0) throw new TypeError("The event type is required");
    // WebIDL: the type is converted before the dictionary, whose members are read in order.
    const name = String(type);
    this.#state = {
      type: name,
      bubbles: Boolean(init?.bubbles),
      cancelable: Boolean(init?.cancelable),
      composed: Boolean(init?.composed),
      target: null,
      currentTarget: null,
      phase: PHASES.NONE,
      stopPropagation: false,
      stopImmediatePropagation: false,
      canceled: false,
      inPassiveListener: false,
      dispatching: false,
      trusted: false,
    };
    Object.defineProperty(this, "isTrusted", { get: isTrustedGetter, enumerable: true, configurable: false });
  }
  get type(): string {
    return this.#state.type;
  }
  get bubbles(): boolean {
    return this.#state.bubbles;
  }
  get cancelable(): boolean {
    return this.#state.cancelable;
  }
  get composed(): boolean {
    return this.#state.composed;
  }
  get timeStamp(): number {
    return this.#timeStamp;
  }
  get target(): EventTarget | null {
    return this.#state.target;
  }
  get currentTarget(): EventTarget | null {
    return this.#state.currentTarget;
  }
  get srcElement(): EventTarget | null {
    return this.#state.target;
  }
  get eventPhase(): number {
    return this.#state.phase;
  }
  get defaultPrevented(): boolean {
    return this.#state.canceled;
  }
  get returnValue(): boolean {
    return !this.#state.canceled;
  }
  set returnValue(value: boolean) {
    if (!value) this.#cancel();
  }
  get cancelBubble(): boolean {
    return this.#state.stopPropagation;
  }
  /** Setting it to false does nothing (DOM §2.2: the flag is only ever set). */
  set cancelBubble(value: boolean) {
    if (value) this.#state.stopPropagation = true;
  }
  preventDefault(): void {
    this.#cancel();
  }
  /** DOM "set the canceled flag": a passive listener cannot cancel. */
  #cancel(): void {
    if (this.#state.cancelable && !this.#state.inPassiveListener) this.#state.canceled = true;
  }
  stopPropagation(): void {
    this.#state.stopPropagation = true;
  }
  stopImmediatePropagation(): void {
    this.#state.stopPropagation = true;
    this.#state.stopImmediatePropagation = true;
  }
  composedPath(): EventTarget[] {
    const current = this.#state.currentTarget;
    return current ? [current] : [];
  }
  /** The legacy initializer; it does nothing while the event is being dispatched. */
  initEvent(type: string, bubbles = false, cancelable = false): void {
    if (arguments.length === 0) throw new TypeError("initEvent requires 1 argument");
    if (this.#state.dispatching) return;
    Object.assign(this.#state, {
      stopPropagation: false,
      stopImmediatePropagation: false,
      canceled: false,
      trusted: false,
      target: null,
      type: String(type),
      bubbles: Boolean(bubbles),
      cancelable: Boolean(cancelable),
    });
  }
  get [Symbol.toStringTag](): string {
    return "Event";
  }
}

// WebIDL constants: on the interface object and its prototype, read-only.
for (const [name, value] of Object.entries(PHASES)) {
  const constant = { value, enumerable: true, writable: false, configurable: false };
  Object.defineProperty(Event, name, constant);
  Object.defineProperty(Event.prototype, name, constant);
}

/**
 * DOM "fire an event": the platform's own dispatch, of a trusted event (`isTrusted`), as the
 * abort event is. Not reachable from guest code, unlike `dispatchEvent`.
 */
let fireEvent: (target: EventTarget, event: Event) => boolean;
function fire(target: EventTarget, type: string): void {
  const event = new Event(type);
  stateOf(event).trusted = true;
  fireEvent(target, event);
}

type Listener = ((event: Event) => void) | { handleEvent(event: Event): void };
/** DOM §2.7 event listener: `removed` is set when it leaves the list, so a dispatch under way skips it. */
interface Registration {
  callback: Listener;
  capture: boolean;
  passive: boolean;
  once: boolean;
  removed: boolean;
  signal: AbortSignal | null;
  /** The abort algorithm that removes it when its signal aborts. */
  onAbort: (() => void) | null;
}
type ListenerOptions = boolean | { capture?: boolean };
type AddListenerOptions =
  boolean | { capture?: boolean; once?: boolean; passive?: boolean; signal?: AbortSignal };

/** WebIDL: `(EventListenerOptions or boolean)` is the dictionary for an object, null or undefined. */
function isDictionary(options: unknown): options is Record<string, unknown> | null | undefined {
  return (
    options === null || options === undefined || typeof options === "object" || typeof options === "function"
  );
}

/** DOM "flatten": only `capture`, the one member removeEventListener reads. */
function captureOf(options: ListenerOptions | undefined | null): boolean {
  return isDictionary(options) ? Boolean(options?.capture) : Boolean(options);
}

/** DOM "flatten more", members read in WebIDL's order; a signal that is not an AbortSignal throws. */
function flattenMore(options: AddListenerOptions | undefined | null) {
  const capture = captureOf(options);
  if (!isDictionary(options) || !options) return { capture, once: false, passive: false, signal: null };
  const once = Boolean(options.once);
  const passive = options.passive === undefined ? false : Boolean(options.passive);
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError("Failed to execute 'addEventListener': member signal is not of type AbortSignal");
  }
  return { capture, once, passive, signal: signal ?? null };
}

function checkListener(listener: unknown): void {
  if (
    listener !== null &&
    listener !== undefined &&
    typeof listener !== "object" &&
    typeof listener !== "function"
  ) {
    throw new TypeError("The listener must be a function, an object with handleEvent, or null");
  }
}

export class EventTarget {
  #listeners = new Map<string, Registration[]>();
  /** Who listeners see as `this`, `target` and `currentTarget`, and whose `on<type>` is called (see globalEvents). */
  #self: object = this;

  /** @internal */ static actingAs(target: EventTarget, self: object): void {
    target.#self = self;
  }

  addEventListener(type: string, listener: Listener | null, options?: AddListenerOptions): void {
    if (arguments.length < 2) throw new TypeError("addEventListener requires 2 arguments");
    const name = String(type);
    checkListener(listener);
    const { capture, once, passive, signal } = flattenMore(options);
    // DOM "add an event listener".
    if (signal?.aborted || !listener) return;
    const list = this.#listeners.get(name) ?? [];
    if (list.some((r) => r.callback === listener && r.capture === capture)) return;
    const registration: Registration = {
      callback: listener,
      capture,
      passive,
      once,
      removed: false,
      signal,
      onAbort: null,
    };
    list.push(registration);
    this.#listeners.set(name, list);
    if (signal) {
      registration.onAbort = () => this.#remove(name, registration);
      abortAlgorithms(signal).add(registration.onAbort);
    }
  }

  removeEventListener(type: string, listener: Listener | null, options?: ListenerOptions): void {
    if (arguments.length < 2) throw new TypeError("removeEventListener requires 2 arguments");
    const name = String(type);
    checkListener(listener);
    const capture = captureOf(options);
    const registration = this.#listeners
      .get(name)
      ?.find((r) => r.callback === listener && r.capture === capture);
    if (registration) this.#remove(name, registration);
  }

  /** DOM "remove an event listener". */
  #remove(type: string, registration: Registration): void {
    registration.removed = true;
    if (registration.signal && registration.onAbort)
      abortAlgorithms(registration.signal).delete(registration.onAbort);
    const list = this.#listeners.get(type);
    const index = list ? list.indexOf(registration) : -1;
    if (index >= 0) list!.splice(index, 1);
    if (list?.length === 0) this.#listeners.delete(type);
  }

  dispatchEvent(event: Event): boolean {
    if (!(event instanceof Event)) {
      throw new TypeError("Failed to execute 'dispatchEvent': parameter 1 is not of type 'Event'");
    }
    const state = stateOf(event);
    // Its "initialized flag" is always set: there is no document.createEvent to make one without.
    if (state.dispatching) {
      throw new DOMException("The event is already being dispatched", "InvalidStateError");
    }
    state.trusted = false;
    return this.#dispatch(event, state);
  }

  static {
    fireEvent = (target, event) => target.#dispatch(event, stateOf(event));
  }

  /**
   * DOM §2.9 "dispatch" for a target without parents: its path is the target alone, invoked
   * at AT_TARGET once for capturing listeners, then once for the others.
   */
  #dispatch(event: Event, state: EventState): boolean {
    state.dispatching = true;
    const self = this.#self as EventTarget;
    state.target = self;
    try {
      this.#invoke(event, state, "capturing");
      this.#invoke(event, state, "bubbling");
    } finally {
      state.phase = PHASES.NONE;
      state.currentTarget = null;
      state.dispatching = false;
      state.stopPropagation = false;
      state.stopImmediatePropagation = false;
    }
    return !state.canceled;
  }

  /** DOM "invoke" and "inner invoke": a clone of the list, so listeners added now wait for the next event. */
  #invoke(event: Event, state: EventState, phase: "capturing" | "bubbling"): void {
    if (state.stopPropagation) return;
    const self = this.#self as EventTarget;
    state.phase = PHASES.AT_TARGET;
    state.currentTarget = self;
    const listeners = [...(this.#listeners.get(state.type) ?? [])];
    for (const registration of listeners) {
      if (registration.removed || registration.capture !== (phase === "capturing")) continue;
      if (registration.once) this.#remove(state.type, registration);
      this.#call(event, state, registration.callback, registration.passive);
      if (state.stopImmediatePropagation) return;
    }
    // The `on<type>` attribute (HTML §8.1.8.1), here a bubbling listener after the others.
    const handler =
      phase === "bubbling" ? (self as unknown as Record<string, unknown>)[`on${state.type}`] : null;
    if (typeof handler === "function") this.#call(event, state, handler as Listener, false);
  }

  /** WebIDL "call a user object's operation": a function is called, an object's `handleEvent` looked up each time. */
  #call(event: Event, state: EventState, callback: Listener, passive: boolean): void {
    state.inPassiveListener = passive;
    try {
      if (typeof callback === "function") {
        callback.call(this.#self, event);
      } else {
        const handle: unknown = (callback as Record<string, unknown>).handleEvent;
        if (typeof handle !== "function") throw new TypeError("The listener's handleEvent is not a function");
        (handle as (e: Event) => void).call(callback, event);
      }
    } catch (error) {
      reportError(error);
    } finally {
      state.inPassiveListener = false;
    }
  }
}

/** DOM §2.4 CustomEvent: an Event carrying `detail` (null unless given). */
export class CustomEvent<T = unknown> extends Event {
  #detail: T | null;
  constructor(
    type: string,
    init: { bubbles?: boolean; cancelable?: boolean; composed?: boolean; detail?: T } = {},
  ) {
    if (arguments.length === 0) throw new TypeError("The event type is required");
    super(type, init);
    this.#detail = init?.detail === undefined ? null : init.detail;
  }
  get detail(): T | null {
    return this.#detail;
  }
  /** The legacy initializer; like initEvent, it does nothing while the event is being dispatched. */
  initCustomEvent(type: string, bubbles = false, cancelable = false, detail: T | null = null): void {
    if (arguments.length === 0) throw new TypeError("initCustomEvent requires 1 argument");
    if (stateOf(this).dispatching) return;
    this.initEvent(type, bubbles, cancelable);
    this.#detail = detail;
  }
  override get [Symbol.toStringTag](): string {
    return "CustomEvent";
  }
}

interface ErrorEventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
  message?: string;
  filename?: string;
  lineno?: number;
  colno?: number;
  error?: unknown;
}

/** HTML §8.1.4.5 ErrorEvent: what "report the exception" dispatches on the global. */
export class ErrorEvent extends Event {
  readonly #message: string;
  readonly #filename: string;
  readonly #lineno: number;
  readonly #colno: number;
  readonly #error: unknown;
  constructor(type: string, init: ErrorEventInit = {}) {
    if (arguments.length === 0) throw new TypeError("The event type is required");
    super(type, init);
    this.#message = init?.message === undefined ? "" : String(init.message);
    this.#filename = init?.filename === undefined ? "" : String(init.filename);
    // WebIDL unsigned long.
    this.#lineno = Number(init?.lineno ?? 0) >>> 0;
    this.#colno = Number(init?.colno ?? 0) >>> 0;
    this.#error = init?.error;
  }
  get message(): string {
    return this.#message;
  }
  get filename(): string {
    return this.#filename;
  }
  get lineno(): number {
    return this.#lineno;
  }
  get colno(): number {
    return this.#colno;
  }
  get error(): unknown {
    return this.#error;
  }
  override get [Symbol.toStringTag](): string {
    return "ErrorEvent";
  }
}

/**
 * The global object's listeners (`addEventListener("error", …)`, `onerror`): the global is
 * not an EventTarget itself (its prototype chain is V8's), so this target acts as it.
 */
export const globalEvents = new EventTarget();
EventTarget.actingAs(globalEvents, globalThis);

/** Where an error was thrown: the first frame of its V8 stack. */
function origin(error: unknown): { filename: string; lineno: number; colno: number } {
  const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
  const frame = /^\s+at (?:.*\()?(.+?):(\d+):(\d+)\)?$/m.exec(stack);
  return frame
    ? { filename: frame[1]!, lineno: Number(frame[2]), colno: Number(frame[3]) }
    : { filename: "", lineno: 0, colno: 0 };
}

let reporting = 0;

/**
 * HTML "report the exception", as Deno does it: an ErrorEvent on the global; unless a
 * listener cancels it, the error is uncaught. Here that is an unhandled rejection: the host
 * logs it as "Uncaught …" on the current request's log and fails the request unless it has
 * already answered (Deno ends the process). A listener's exception does not stop dispatch
 * (DOM §2.9); an error thrown while reporting one is not reported again.
 */
export function reportError(error: unknown): void {
  if (arguments.length === 0) throw new TypeError("reportError requires 1 argument");
  reporting++;
  try {
    let message = "";
    try {
      message = error instanceof Error ? error.message : String(error);
    } catch {
      // An object without a string form: the event's message stays empty.
    }
    const event = new ErrorEvent("error", { cancelable: true, message, ...origin(error), error });
    // The platform fires it, so it is trusted (HTML "report an exception"; Deno's is too).
    stateOf(event).trusted = true;
    if (reporting > 1 || fireEvent(globalEvents, event)) void Promise.reject(error);
  } finally {
    reporting--;
  }
}

const ABORT = Symbol("abort");
const TIMEOUT = "Failed to execute 'AbortSignal.timeout'";
const ANY = "Failed to execute 'AbortSignal.any'";

/** The steps an AbortSignal runs when it aborts, before its abort event (DOM §3.2 "abort algorithms"). */
let abortAlgorithms: (signal: AbortSignal) => Set<() => void>;
/** DOM "signal abort", for AbortController and the platform; guest code has no way to it but a controller. */
let signalAbort: (signal: AbortSignal, reason: unknown) => void;

/**
 * DOM §3.2 AbortSignal. A signal made by `AbortSignal.any` is dependent: it follows the
 * non-dependent signals behind the ones it was given (its sources), which abort it after
 * their own abort event, in the order it was made in (DOM "signal abort").
 */
export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  #algorithms = new Set<() => void>();
  #dependent = false;
  #sources = new Set<AbortSignal>();
  /** Held strongly: a dependent signal lives as long as one of its sources can still abort it. */
  #dependents = new Set<AbortSignal>();
  #onabort: ((event: Event) => void) | null = null;

  static {
    abortAlgorithms = (signal) => signal.#algorithms;
    signalAbort = (signal, reason) => signal.#signalAbort(reason);
  }

  constructor(key?: symbol) {
    super();
    if (key !== ABORT) throw new TypeError("Illegal constructor");
  }
  get aborted(): boolean {
    return this.#aborted;
  }
  get reason(): unknown {
    return this.#reason;
  }
  get onabort(): ((event: Event) => void) | null {
    return this.#onabort;
  }
  set onabort(handler: ((event: Event) => void) | null) {
    this.#onabort = typeof handler === "function" ? handler : null;
  }
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }
  /**
   * DOM "signal abort": the reason is set on the signal and on every dependent not yet aborted,
   * then the signal runs its abort steps, then each of those dependents runs its own.
   */
  #signalAbort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason =
      reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    const dependents = [...this.#dependents].filter((dependent) => !dependent.#aborted);
    for (const dependent of dependents) {
      dependent.#aborted = true;
      dependent.#reason = this.#reason;
    }
    this.#runAbortSteps();
    for (const dependent of dependents) dependent.#runAbortSteps();
  }
  /** DOM "run the abort steps": the abort algorithms, then a trusted abort event. */
  #runAbortSteps(): void {
    const algorithms = [...this.#algorithms];
    // Nothing can abort this signal again: let go of what only mattered until now.
    this.#algorithms.clear();
    this.#dependents.clear();
    for (const source of this.#sources) source.#dependents.delete(this);
    this.#sources.clear();
    for (const algorithm of algorithms) algorithm();
    fire(this, "abort");
  }
  static abort(reason?: unknown): AbortSignal {
    const signal = new AbortSignal(ABORT);
    signal.#aborted = true;
    signal.#reason =
      reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    return signal;
  }
  static timeout(ms: number): AbortSignal {
    // WebIDL [EnforceRange] unsigned long long, with Deno's messages.
    if (arguments.length === 0) throw new TypeError(`${TIMEOUT}: 1 argument required, but only 0 present`);
    const delay = Number(ms);
    if (!Number.isFinite(delay)) throw new TypeError(`${TIMEOUT}: Argument 1 is not a finite number`);
    if (delay < 0 || delay > Number.MAX_SAFE_INTEGER) {
      throw new TypeError(
        `${TIMEOUT}: Argument 1 is outside the accepted range of 0 to ${Number.MAX_SAFE_INTEGER}, inclusive`,
      );
    }
    // A guest timer: it belongs to the request, is counted with its timers and dies with it.
    const signal = new AbortSignal(ABORT);
    setTimeout(
      () => signalAbort(signal, new DOMException("The operation timed out.", "TimeoutError")),
      Math.trunc(delay),
    );
    return signal;
  }
  /** DOM "create a dependent abort signal". */
  static any(signals: Iterable<AbortSignal>): AbortSignal {
    if (arguments.length === 0) throw new TypeError(`${ANY}: 1 argument required, but only 0 present`);
    const list = [...signals];
    list.forEach((source, index) => {
      if (!(source instanceof AbortSignal)) {
        throw new TypeError(`${ANY}: Argument 1, index ${index} is not of type AbortSignal`);
      }
    });
    const result = new AbortSignal(ABORT);
    const aborted = list.find((source) => source.#aborted);
    if (aborted) {
      result.#aborted = true;
      result.#reason = aborted.#reason;
      return result;
    }
    result.#dependent = true;
    for (const signal of list) {
      // A dependent signal's own sources stand in for it, so no chain of dependents forms.
      for (const source of signal.#dependent ? signal.#sources : [signal]) {
        result.#sources.add(source);
        source.#dependents.add(result);
      }
    }
    return result;
  }
  get [Symbol.toStringTag]() {
    return "AbortSignal";
  }
}

export class AbortController {
  readonly #signal = new AbortSignal(ABORT);
  get signal(): AbortSignal {
    return this.#signal;
  }
  abort(reason?: unknown): void {
    signalAbort(this.#signal, reason);
  }
  get [Symbol.toStringTag]() {
    return "AbortController";
  }
}

interface PromiseRejectionEventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
  promise: Promise<unknown>;
  reason?: unknown;
}

/** HTML §8.1.4.7 PromiseRejectionEvent (the interface; the platform fires no unhandledrejection events yet). */
export class PromiseRejectionEvent extends Event {
  readonly #promise: Promise<unknown>;
  readonly #reason: unknown;
  constructor(type: string, init: PromiseRejectionEventInit) {
    if (arguments.length === 0) throw new TypeError("The event type is required");
    super(type, init);
    this.#promise = init?.promise;
    this.#reason = init?.reason;
  }
  get promise(): Promise<unknown> {
    return this.#promise;
  }
  get reason(): unknown {
    return this.#reason;
  }
  override get [Symbol.toStringTag](): string {
    return "PromiseRejectionEvent";
  }
}

export { clearTimeout };
