import { Body, cloneBody, emptyBody, extractBody, isUsed, bodyOf, type BodyState } from "./body.ts";
import { AbortController, AbortSignal } from "./events.ts";
import { Headers, type HeadersInit } from "./headers.ts";
import { URL } from "./url.ts";

/** Fetch Standard §5.4 Request and §5.5 Response. */

const METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

export interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: unknown;
  signal?: AbortSignal | null;
  redirect?: "follow" | "error" | "manual";
  [key: string]: unknown;
}

function normalizeMethod(method: unknown): string {
  const text = String(method);
  if (!TOKEN.test(text)) throw new TypeError(`'${text}' is not a valid HTTP method`);
  const upper = text.toUpperCase();
  if (upper === "CONNECT" || upper === "TRACE" || upper === "TRACK") {
    throw new TypeError(`'${text}' HTTP method is unsupported`);
  }
  return METHODS.has(upper) ? upper : text;
}

interface TrustedRequest {
  method: string;
  url: string;
  /** The host's header pairs as JSON text, parsed on first use of `headers`. */
  headers: string;
  body: BodyState;
  /** Makes the signal on first use of `signal` (most handlers never look). */
  signal: () => AbortSignal;
}
/** Set just before an internal `new Request`, which takes it as is (private fields need the constructor). */
let trusted: TrustedRequest | null = null;

export class Request extends Body {
  #method: string;
  #url: string;
  #headers: Headers | null = null;
  #headerJson: string | null = null;
  #signal: AbortSignal | null = null;
  #signalOf: (() => AbortSignal) | null = null;
  #redirect: "follow" | "error" | "manual" = "follow";
  #body: BodyState;

  constructor(input: Request | string | URL, init: RequestInit = {}) {
    super();
    if (trusted) {
      const t = trusted;
      trusted = null;
      this.#method = t.method;
      this.#url = t.url;
      this.#headerJson = t.headers;
      this.#signalOf = t.signal;
      this.#body = t.body;
      return;
    }
    init = init ?? {};
    const from = input instanceof Request ? input : null;
    this.#url = from ? from.#url : parseUrl(input);
    this.#method = init.method !== undefined ? normalizeMethod(init.method) : from ? from.#method : "GET";
    this.#redirect = init.redirect ?? (from ? from.#redirect : "follow");
    this.#headers = new Headers(init.headers ?? (from ? from.headers : undefined));
    const controller = new AbortController();
    const parent = init.signal !== undefined ? init.signal : from ? from.signal : null;
    if (parent) {
      if (parent.aborted) controller.abort(parent.reason);
      else parent.addEventListener("abort", () => controller.abort(parent.reason), { once: true });
    }
    this.#signal = controller.signal;
    const inherited =
      from !== null && init.body === undefined && (from.#body.source !== null || from.#body.stream !== null);
    const hasBody = (init.body !== undefined && init.body !== null) || inherited;
    if (hasBody && (this.#method === "GET" || this.#method === "HEAD")) {
      throw new TypeError("Request with GET/HEAD method cannot have body.");
    }
    if (init.body !== undefined) {
      const { state, contentType } = extractBody(init.body);
      this.#body = state;
      if (contentType && !this.#headers.has("content-type")) this.#headers.set("content-type", contentType);
    } else if (from) {
      if (isUsed(from.#body))
        throw new TypeError("Cannot construct a Request with a Request whose body is already used");
      // The new request takes the body over; the old one counts as used.
      this.#body = { ...from.#body };
      from.#body.used = true;
    } else this.#body = emptyBody();
  }

  /**
   * @internal The incoming request, from trusted host values (URL already parsed by the
   * host; `headers` the JSON text of lowercased pairs), its headers and signal made on first use.
   */
  static fromHost(
    method: string,
    url: string,
    headers: string,
    body: Uint8Array | null,
    signal: () => AbortSignal,
  ): Request {
    trusted = { method, url, headers, body: bodyOf(body), signal };
    return new Request("");
  }

  /** @internal */ bodyState(): BodyState {
    return this.#body;
  }
  get method(): string {
    return this.#method;
  }
  get url(): string {
    return this.#url;
  }
  get headers(): Headers {
    return (this.#headers ??= Headers.fromTrusted(JSON.parse(this.#headerJson!) as Array<[string, string]>));
  }
  get signal(): AbortSignal {
    return (this.#signal ??= this.#signalOf!());
  }
  get redirect(): string {
    return this.#redirect;
  }
  get cache(): string {
    return "default";
  }
  get credentials(): string {
    return "same-origin";
  }
  get destination(): string {
    return "";
  }
  get integrity(): string {
    return "";
  }
  get keepalive(): boolean {
    return false;
  }
  get mode(): string {
    return "cors";
  }
  get referrer(): string {
    return "about:client";
  }
  get referrerPolicy(): string {
    return "";
  }
  clone(): Request {
    const signal = this.signal;
    const copy = Request.fromHost(this.#method, this.#url, "[]", null, () => signal);
    copy.#headers = new Headers(this.headers);
    copy.#redirect = this.#redirect;
    copy.#body = cloneBody(this.#body);
    return copy;
  }
  get [Symbol.toStringTag](): string {
    return "Request";
  }
}

function parseUrl(input: unknown): string {
  try {
    return new URL(String(input)).href;
  } catch {
    throw new TypeError(`Invalid URL: '${String(input)}'`);
  }
}

export interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

export class Response extends Body {
  #status = 200;
  #statusText = "";
  #headers!: Headers;
  #type: "default" | "basic" | "error" = "default";
  #url = "";
  #redirected = false;
  #body!: BodyState;

  constructor(body: unknown = null, init: ResponseInit = {}) {
    super();
    init = init ?? {};
    const status = init.status === undefined ? 200 : Number(init.status);
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError(`The status provided (${String(init.status)}) is outside the range [200, 599].`);
    }
    const statusText = init.statusText === undefined ? "" : String(init.statusText);
    if (/[^\t\x20-\x7e\x80-\xff]/.test(statusText)) throw new TypeError("Invalid statusText");
    this.#status = status;
    this.#statusText = statusText;
    this.#headers = new Headers(init.headers);
    if (body !== null && body !== undefined && NULL_BODY_STATUS.has(status)) {
      throw new TypeError(`Response with null body status ${status} cannot have body`);
    }
    const { state, contentType } = extractBody(body);
    this.#body = state;
    if (contentType && !this.#headers.has("content-type")) this.#headers.set("content-type", contentType);
  }

  static json(data: unknown, init: ResponseInit = {}): Response {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError("The data is not JSON-serializable");
    const response = new Response(null, init);
    if (NULL_BODY_STATUS.has(response.#status)) {
      throw new TypeError(`Response with null body status ${response.#status} cannot have body`);
    }
    response.#body = extractBody(text).state;
    if (!response.#headers.has("content-type")) response.#headers.set("content-type", "application/json");
    return response;
  }
  static redirect(url: string | URL, status = 302): Response {
    if (!REDIRECT_STATUS.has(status)) throw new RangeError(`Invalid redirect status: ${status}`);
    const response = new Response(null, { status });
    response.#headers.set("location", parseUrl(url));
    Headers.setGuard(response.#headers, "immutable");
    return response;
  }
  static error(): Response {
    const response = new Response(null, { status: 200 });
    response.#status = 0;
    response.#type = "error";
    Headers.setGuard(response.#headers, "immutable");
    return response;
  }
  /** @internal A response from the host (fetch): status 0–999 allowed as received. */
  static fromHost(
    status: number,
    statusText: string,
    headers: Array<[string, string]>,
    body: Uint8Array | null,
    url: string,
  ): Response {
    const response = new Response(null);
    response.#status = status;
    response.#statusText = statusText;
    response.#headers = Headers.setGuard(Headers.fromTrusted(headers), "immutable");
    response.#body = bodyOf(body);
    response.#type = "basic";
    response.#url = url;
    return response;
  }
  /** @internal */ static isError(response: Response): boolean {
    return response.#type === "error";
  }
  /** @internal */ bodyState(): BodyState {
    return this.#body;
  }
  get type(): string {
    return this.#type;
  }
  get url(): string {
    return this.#url;
  }
  get redirected(): boolean {
    return this.#redirected;
  }
  get status(): number {
    return this.#status;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }
  get statusText(): string {
    return this.#statusText;
  }
  get headers(): Headers {
    return this.#headers;
  }
  clone(): Response {
    const copy = new Response(null);
    copy.#status = this.#status;
    copy.#statusText = this.#statusText;
    copy.#headers = new Headers(this.#headers);
    copy.#type = this.#type;
    copy.#url = this.#url;
    copy.#redirected = this.#redirected;
    copy.#body = cloneBody(this.#body);
    return copy;
  }
  get [Symbol.toStringTag](): string {
    return "Response";
  }
}
