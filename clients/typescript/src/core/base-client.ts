import { APIPromise, parseJSON, type RawResponse } from "./api-promise.ts";
import { Credentials } from "./credentials.ts";
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  TesseraError,
  errorFromResponse,
} from "./errors.ts";
import {
  applyHeaders,
  buffered,
  describeFetchError,
  isExpiredToken,
  newIdempotencyKey,
  queryString,
} from "./http.ts";
import {
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  readEnv,
  type ClientOptions,
  type Fetch,
  type HeadersInput,
  type Logger,
  type RequestOptions,
} from "./options.ts";
import { PagePromise, type Pagination } from "./pagination.ts";
import { isRetryableStatus, retryDelayMs, sleep } from "./retry.ts";
import { VERSION } from "../version.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request as a method describes it. */
export interface RequestSpec {
  method: HttpMethod;
  /** From the origin: `/v1/invoices/inv_…`. */
  path: string;
  query?: object | undefined;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, instead of `body` (a function invocation's). */
  rawBody?: string | ArrayBuffer | Uint8Array<ArrayBuffer> | Blob | URLSearchParams | FormData;
  headers?: HeadersInput | Record<string, string | undefined>;
  accept?: string;
  /** The caller reads the body: the timeout covers the attempt until the headers only. */
  stream?: boolean;
  /**
   * `refusals`: the request is not safe to send twice (a function's POST: no Idempotency-Key protects
   * it), so only a 429 (refused before it ran) is retried, and no Idempotency-Key is sent.
   */
  retry?: "all" | "refusals";
  /** `false`: send no Idempotency-Key unless the caller gives one (a streamed SYNC reply: see sync-stream.ts). */
  idempotencyKey?: false;
  pagination?: Pagination;
  /** A non-2xx answer that is not an error of the API (a function's own 404): returned, not thrown. */
  isOwnAnswer?: (response: Response, text: string) => boolean;
}

/** Methods whose retries the server makes safe with `Idempotency-Key` (api/middleware/idempotency.ts). */
const KEYED_METHODS = new Set<HttpMethod>(["POST", "PATCH"]);
const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/**
 * The transport every resource calls: base URL, credential, headers, timeouts, retries with
 * backoff, `Idempotency-Key`, and one refresh of an expired OAuth token.
 */
export class BaseClient {
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly #credentials: Credentials;
  readonly #fetch: Fetch;
  readonly #defaultHeaders: HeadersInput | undefined;
  readonly #logger: Logger | undefined;

  constructor(options: ClientOptions = {}) {
    this.#credentials = new Credentials(options);
    this.baseURL = (options.baseURL ?? readEnv("TESSERA_BASE_URL") ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0) {
      throw new TesseraError("maxRetries must be a whole number, 0 or more");
    }
    if (!(this.timeout > 0)) throw new TesseraError("timeout must be a number of milliseconds above 0");
    if (!options.fetch && typeof globalThis.fetch !== "function") {
      throw new TesseraError("No fetch here: pass new Tessera({ fetch })");
    }
    // Looked up at each call, so a fetch patched later (a test's, an instrumentation's) is used.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#defaultHeaders = options.defaultHeaders;
    this.#logger = options.logger;
  }

  /** Sends a request and parses its JSON answer. Any route, documented or not: `client.request({ method: "GET", path: "/v1/me" })`. */
  request<T>(spec: RequestSpec, options?: RequestOptions): APIPromise<T> {
    return new APIPromise(this.makeRequest(spec, options), parseJSON<T>);
  }

  /** Sends a list request: a promise of its page that also iterates every item of every page. */
  list<Item, Meta>(spec: RequestSpec, options?: RequestOptions): PagePromise<Item, Meta> {
    const query = { ...(spec.query as Record<string, unknown> | undefined) };
    return new PagePromise<Item, Meta>(this.makeRequest({ ...spec, query }, options), {
      pagination: spec.pagination ?? "single",
      query,
      fetch: (next) => this.list<Item, Meta>({ ...spec, query: next }, options),
    });
  }

  /**
   * Sends a request until it succeeds, fails for good, or runs out of retries; resolves with the
   * 2xx response, throws an `APIError` otherwise.
   */
  async makeRequest(spec: RequestSpec, options: RequestOptions = {}): Promise<RawResponse> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const keyed =
      KEYED_METHODS.has(spec.method) && spec.retry !== "refusals" && spec.idempotencyKey !== false;
    // One key per call, the same on each of its retries.
    const idempotencyKey = options.idempotencyKey ?? (keyed ? newIdempotencyKey() : undefined);
    let retries = 0;
    let refreshed = false;
    for (;;) {
      const bearer = this.#credentials.bearer;
      let raw: RawResponse;
      try {
        raw = await this.#attempt(spec, options, bearer, idempotencyKey);
      } catch (error) {
        const retryable = error instanceof APIConnectionError && spec.retry !== "refusals";
        if (!retryable || retries >= maxRetries) throw error;
        await this.#wait(spec, options, retries++, undefined, error.message);
        continue;
      }
      const { response } = raw;
      if (response.ok) return raw;
      const text = raw.text ?? (await response.text().catch(() => ""));
      if (spec.isOwnAnswer?.(response, text)) return { response: buffered(response, text), text };
      if (
        !refreshed &&
        response.status === 401 &&
        this.#credentials.canRefresh &&
        isExpiredToken(response, text)
      ) {
        refreshed = true;
        this.#log("refreshing the access token", { method: spec.method, path: spec.path });
        const timeoutMs = options.timeout ?? this.timeout;
        const endpoint = { baseURL: this.baseURL, fetch: this.#fetch, timeoutMs, signal: options.signal };
        await this.#credentials.refresh(bearer, endpoint);
        continue;
      }
      const retryable =
        spec.retry === "refusals" ? response.status === 429 : isRetryableStatus(response.status);
      if (retryable && retries < maxRetries) {
        const delay = retryDelayMs(retries, response.headers, Date.now(), Math.random);
        if (delay !== undefined) {
          await this.#wait(spec, options, retries++, delay, `status ${response.status}`);
          continue;
        }
      }
      throw errorFromResponse(response.status, response.headers, text);
    }
  }

  async #wait(
    spec: RequestSpec,
    options: RequestOptions,
    retry: number,
    delay: number | undefined,
    reason: string,
  ) {
    const delayMs = delay ?? retryDelayMs(retry, undefined, Date.now(), Math.random)!;
    this.#log("retrying", {
      method: spec.method,
      path: spec.path,
      retry: retry + 1,
      delayMs: Math.round(delayMs),
      reason,
    });
    try {
      await sleep(delayMs, options.signal);
    } catch (cause) {
      throw new APIUserAbortError(undefined, { cause });
    }
  }

  /** One attempt: the request, its answer's headers, and (unless streamed) its body, within the timeout. */
  async #attempt(
    spec: RequestSpec,
    options: RequestOptions,
    bearer: string,
    idempotencyKey: string | undefined,
  ): Promise<RawResponse> {
    const userSignal = options.signal;
    if (userSignal?.aborted) throw new APIUserAbortError(undefined, { cause: userSignal.reason });
    const timeoutMs = options.timeout ?? this.timeout;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onUserAbort = () => controller.abort(userSignal?.reason);
    userSignal?.addEventListener("abort", onUserAbort, { once: true });
    const release = () => {
      clearTimeout(timer);
      userSignal?.removeEventListener("abort", onUserAbort);
    };
    const url = `${this.baseURL}${spec.path}${queryString(spec.query)}`;
    this.#log("request", { method: spec.method, path: spec.path });
    try {
      const response = await this.#fetch(url, {
        method: spec.method,
        headers: this.#headers(spec, options, bearer, idempotencyKey),
        ...bodyOf(spec),
        signal: controller.signal,
      });
      this.#log("response", { method: spec.method, path: spec.path, status: response.status });
      if (spec.stream && response.ok) {
        // A stream lives as long as its reader wants: the timeout was for the headers.
        clearTimeout(timer);
        return { response, abort: () => controller.abort() };
      }
      const text = await response.text();
      release();
      return { response: buffered(response, text), text };
    } catch (error) {
      release();
      if (timedOut) throw new APITimeoutError(`Request timed out after ${timeoutMs} ms`);
      if (userSignal?.aborted) throw new APIUserAbortError(undefined, { cause: error });
      throw new APIConnectionError(`Connection error: ${describeFetchError(error)}`, { cause: error });
    }
  }

  #headers(
    spec: RequestSpec,
    options: RequestOptions,
    bearer: string,
    idempotencyKey: string | undefined,
  ): Headers {
    const headers = new Headers({
      accept: spec.accept ?? "application/json",
      authorization: `Bearer ${bearer}`,
    });
    if (spec.body !== undefined && spec.rawBody === undefined)
      headers.set("content-type", "application/json");
    if (idempotencyKey !== undefined) headers.set("idempotency-key", idempotencyKey);
    // Browsers refuse to set it, and it would need a CORS preflight allowance.
    if (!("document" in globalThis)) headers.set("user-agent", `tessera-typescript/${VERSION}`);
    applyHeaders(headers, this.#defaultHeaders);
    applyHeaders(headers, spec.headers);
    applyHeaders(headers, options.headers);
    return headers;
  }

  #log(message: string, details: Record<string, unknown>): void {
    this.#logger?.debug(`tessera: ${message}`, details);
  }

  /** What may be shown of the client: never its credential. */
  toJSON(): Record<string, unknown> {
    return {
      baseURL: this.baseURL,
      maxRetries: this.maxRetries,
      timeout: this.timeout,
      credential: this.#credentials.toJSON(),
    };
  }

  [INSPECT](): string {
    const { type } = this.#credentials.toJSON();
    return `${this.constructor.name} { baseURL: '${this.baseURL}', credential: '${type} [redacted]', maxRetries: ${this.maxRetries}, timeout: ${this.timeout} }`;
  }
}

/** A resource of the API: its methods call the client. */
export class APIResource {
  protected readonly _client: BaseClient;
  constructor(client: BaseClient) {
    this._client = client;
  }
  toJSON(): Record<string, never> {
    return {};
  }
}

function bodyOf(spec: RequestSpec): { body?: NonNullable<RequestInit["body"]> } {
  if (spec.rawBody !== undefined) return { body: spec.rawBody };
  if (spec.body !== undefined) return { body: JSON.stringify(spec.body) };
  return {};
}
