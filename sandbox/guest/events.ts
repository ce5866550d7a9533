import { DOMException } from "./dom-exception.ts";
import { clearTimeout, setTimeout } from "./timers.ts";

/** DOM Standard §2: Event and EventTarget, without a tree (no capture or bubbling path). */
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

  constructor(type: string, init: { bubbles?: boolean; cancelable?: boolean; composed?: boolean } = {}) {
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
    Event.setTargets(event, this, this);
    const handler = (this as unknown as Record<string, unknown>)[`on${event.type}`];
    for (const registration of [...(this.#listeners.get(event.type) ?? [])]) {
      if (registration.once) this.removeEventListener(event.type, registration.listener, registration);
      const { listener } = registration;
      try {
        if (typeof listener === "function") listener.call(this, event);
        else listener.handleEvent(event);
      } catch (error) {
        reportError(error);
      }
      if (event.stopped) break;
    }
    if (typeof handler === "function" && !event.stopped) {
      try {
        (handler as (e: Event) => void).call(this, event);
      } catch (error) {
        reportError(error);
      }
    }
    Event.setTargets(event, this, null);
    return !event.defaultPrevented;
  }
}

/** A listener's exception does not stop dispatch (DOM §2.9 "report the exception"). */
export function reportError(error: unknown): void {
  void Promise.reject(error);
}

const ABORT = Symbol("abort");

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
    const signal = new AbortSignal(ABORT);
    setTimeout(
      () => AbortSignal.signalAbort(signal, new DOMException("The operation timed out.", "TimeoutError")),
      ms,
    );
    return signal;
  }
  static any(signals: Iterable<AbortSignal>): AbortSignal {
    const signal = new AbortSignal(ABORT);
    const list = [...signals];
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

export { clearTimeout };
