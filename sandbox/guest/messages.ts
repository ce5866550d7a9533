import { structuredClone } from "./clone.ts";
import { Event, EventTarget, type EventInit } from "./events.ts";

/**
 * HTML §9.4 channel messaging inside one isolate: MessageChannel, MessagePort, MessageEvent.
 * A message is a structured clone (DataCloneError for what cannot be cloned), delivered in a
 * microtask of the entry that posted it (the isolate runs no task queue between entries), once
 * the receiving port is started (`start()`, or setting `onmessage`). Ports cannot be
 * transferred: there is no other agent to send one to.
 */
const PORT = Symbol("port");

/**
 * HTML §9.3.3 MessageEvent: a port's messages and a WebSocket's (websocket.ts fires this one class).
 * `data` is null when the init gives none, as the spec's MessageEventInit says; `source` is always
 * null (there is no other window or worker to name).
 */
export class MessageEvent<T = unknown> extends Event {
  readonly #data: T;
  readonly #origin: string;
  readonly #lastEventId: string;
  readonly #ports: readonly MessagePort[];
  constructor(
    type: string,
    init: EventInit & { data?: T; origin?: string; lastEventId?: string; ports?: MessagePort[] } = {},
  ) {
    if (arguments.length === 0) throw new TypeError("The event type is required");
    super(type, init);
    this.#data = (init?.data === undefined ? null : init.data) as T;
    this.#origin = String(init?.origin ?? "");
    this.#lastEventId = String(init?.lastEventId ?? "");
    this.#ports = Object.freeze([...(init?.ports ?? [])]);
  }
  get data(): T {
    return this.#data;
  }
  get origin(): string {
    return this.#origin;
  }
  get lastEventId(): string {
    return this.#lastEventId;
  }
  get source(): null {
    return null;
  }
  get ports(): readonly MessagePort[] {
    return this.#ports;
  }
  override get [Symbol.toStringTag](): string {
    return "MessageEvent";
  }
}

export class MessagePort extends EventTarget {
  #other: MessagePort | null = null;
  #queue: unknown[] = [];
  #started = false;
  #closed = false;
  #scheduled = false;
  #onmessage: ((event: MessageEvent) => void) | null = null;
  onmessageerror: ((event: MessageEvent) => void) | null = null;

  constructor(key?: symbol) {
    super();
    if (key !== PORT) throw new TypeError("Illegal constructor");
  }

  /** @internal */ static entangle(a: MessagePort, b: MessagePort): void {
    a.#other = b;
    b.#other = a;
  }

  postMessage(message: unknown, transfer?: unknown): void {
    void transfer;
    if (arguments.length === 0) {
      throw new TypeError(
        "Failed to execute 'postMessage' on 'MessagePort': 1 argument required, but only 0 present",
      );
    }
    const data = structuredClone(message);
    const target = this.#other;
    if (this.#closed || !target || target.#closed) return;
    target.#queue.push(data);
    target.#schedule();
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#schedule();
  }

  close(): void {
    this.#closed = true;
    this.#queue = [];
    if (this.#other) this.#other.#other = null;
    this.#other = null;
  }

  get onmessage(): ((event: MessageEvent) => void) | null {
    return this.#onmessage;
  }
  set onmessage(handler: ((event: MessageEvent) => void) | null) {
    this.#onmessage = typeof handler === "function" ? handler : null;
    // HTML: setting onmessage starts the port, as start() does.
    this.start();
  }

  #schedule(): void {
    if (!this.#started || this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    void Promise.resolve().then(() => this.#deliver());
  }

  #deliver(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    for (const data of queue) {
      if (this.#closed) return;
      this.dispatchEvent(new MessageEvent("message", { data }));
    }
  }

  get [Symbol.toStringTag](): string {
    return "MessagePort";
  }
}

export class MessageChannel {
  readonly #port1 = new MessagePort(PORT);
  readonly #port2 = new MessagePort(PORT);
  constructor() {
    MessagePort.entangle(this.#port1, this.#port2);
  }
  get port1(): MessagePort {
    return this.#port1;
  }
  get port2(): MessagePort {
    return this.#port2;
  }
  get [Symbol.toStringTag](): string {
    return "MessageChannel";
  }
}
