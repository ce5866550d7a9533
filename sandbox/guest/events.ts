import { DOMException } from "./dom-exception.ts";
import { clearTimeout, setTimeout } from "./timers.ts";

/** DOM Standard §2: Event and EventTarget, without a tree (no capture or bubbling path). */
/** What every event's constructor reads (DOM §2.2 EventInit). */
export interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

export class Event {
  readonly type: string;
  readonly bubbles: boolean;
  readonly cancelable: boolean;
  readonly composed: boolean;
  readonly timeStamp = Date.now();
  #defaultPrevented = false;
  #target: EventTarget | null = null;
  #current: EventTarget | null = null;
  /** @internal */ stopped = false;

  constructor(type: string, init: EventInit = {}) {
    if (arguments.length === 0) throw new TypeError("The event type is required");
    this.type = String(type);
    this.bubbles = Boolean(init?.bubbles);
    this.cancelable = Boolean(init?.cancelable);
    this.composed = Boolean(init?.composed);
  }
  get target(): EventTarget | null {
    return this.#target;
  }
  get currentTarget(): EventTarget | null {
    return this.#current;
  }
  get srcElement(): EventTarget | null {
    return this.#target;
  }
  get defaultPrevented(): boolean {
    return this.#defaultPrevented;
  }
  get eventPhase(): number {
    return this.#current ? 2 : 0;
  }
  get isTrusted(): boolean {
    return false;
  }
  preventDefault(): void {
    if (this.cancelable) this.#defaultPrevented = true;
  }
  stopPropagation(): void {}
  stopImmediatePropagation(): void {
    this.stopped = true;
  }
  composedPath(): EventTarget[] {
    return this.#current ? [this.#current] : [];
  }
  get [Symbol.toStringTag](): string {
    return "Event";
  }
  /** @internal */ static setTargets(
    event: Event,
    target: EventTarget | null,
    current: EventTarget | null,
  ): void {
    event.#target = target;
    event.#current = current;
  }
}

type Listener = ((event: Event) => void) | { handleEvent(event: Event): void };
interface Registration {
  listener: Listener;
  once: boolean;
  capture: boolean;
}

export class EventTarget {
  #listeners = new Map<string, Registration[]>();
  /** Who listeners see as `this`, `target` and `currentTarget`, and whose `on<type>` is called (see globalEvents). */
  #self: object = this;

  /** @internal */ static actingAs(target: EventTarget, self: object): void {
    target.#self = self;
  }

  addEventListener(
    type: string,
    listener: Listener | null,
    options: boolean | { once?: boolean; capture?: boolean; signal?: AbortSignal } = {},
  ): void {
    if (!listener) return;
    const opts = typeof options === "boolean" ? { capture: options } : (options ?? {});
    const signal = (opts as { signal?: AbortSignal }).signal;
    if (signal?.aborted) return;
    const list = this.#listeners.get(String(type)) ?? [];
    const capture = Boolean(opts.capture);
    if (list.some((r) => r.listener === listener && r.capture === capture)) return;
    list.push({ listener, once: Boolean((opts as { once?: boolean }).once), capture });
    this.#listeners.set(String(type), list);
    signal?.addEventListener("abort", () => this.removeEventListener(type, listener, { capture }));
  }

  removeEventListener(
    type: string,
    listener: Listener | null,
    options: boolean | { capture?: boolean } = {},
  ): void {
    const capture = typeof options === "boolean" ? options : Boolean(options?.capture);
    const list = this.#listeners.get(String(type));
    if (!list) return;
    const index = list.findIndex((r) => r.listener === listener && r.capture === capture);
    if (index >= 0) list.splice(index, 1);
  }

  dispatchEvent(event: Event): boolean {
    if (!(event instanceof Event)) throw new TypeError("dispatchEvent takes an Event");
    const self = this.#self as EventTarget;
    Event.setTargets(event, self, self);
    const handler = (self as unknown as Record<string, unknown>)[`on${event.type}`];
    for (const registration of [...(this.#listeners.get(event.type) ?? [])]) {
      if (registration.once) this.removeEventListener(event.type, registration.listener, registration);
      const { listener } = registration;
      try {
        if (typeof listener === "function") listener.call(self, event);
        else listener.handleEvent(event);
      } catch (error) {
        reportError(error);
      }
      if (event.stopped) break;
    }
    if (typeof handler === "function" && !event.stopped) {
      try {
        (handler as (e: Event) => void).call(self, event);
      } catch (error) {
        reportError(error);
      }
    }
    Event.setTargets(event, self, null);
    return !event.defaultPrevented;
  }
}

/** DOM §2.4 CustomEvent: an Event carrying `detail` (null unless given). */
export class CustomEvent<T = unknown> extends Event {
  readonly #detail: T | null;
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
    if (reporting > 1 || globalEvents.dispatchEvent(event)) void Promise.reject(error);
  } finally {
    reporting--;
  }
}

const ABORT = Symbol("abort");
const TIMEOUT = "Failed to execute 'AbortSignal.timeout'";
const ANY = "Failed to execute 'AbortSignal.any'";

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  onabort: ((event: Event) => void) | null = null;

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
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }
  /** @internal */ static signalAbort(signal: AbortSignal, reason: unknown): void {
    if (signal.#aborted) return;
    signal.#aborted = true;
    signal.#reason =
      reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    signal.dispatchEvent(new Event("abort"));
  }
  static abort(reason?: unknown): AbortSignal {
    const signal = new AbortSignal(ABORT);
    AbortSignal.signalAbort(signal, reason);
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
      () => AbortSignal.signalAbort(signal, new DOMException("The operation timed out.", "TimeoutError")),
      Math.trunc(delay),
    );
    return signal;
  }
  static any(signals: Iterable<AbortSignal>): AbortSignal {
    if (arguments.length === 0) throw new TypeError(`${ANY}: 1 argument required, but only 0 present`);
    const signal = new AbortSignal(ABORT);
    const list = [...signals];
    list.forEach((source, index) => {
      if (!(source instanceof AbortSignal)) {
        throw new TypeError(`${ANY}: Argument 1, index ${index} is not of type AbortSignal`);
      }
    });
    const aborted = list.find((s) => s.aborted);
    if (aborted) {
      AbortSignal.signalAbort(signal, aborted.reason);
      return signal;
    }
    for (const source of list) {
      source.addEventListener("abort", () => AbortSignal.signalAbort(signal, source.reason), { once: true });
    }
    return signal;
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
    AbortSignal.signalAbort(this.#signal, reason);
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
