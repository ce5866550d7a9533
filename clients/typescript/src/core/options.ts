/** The `fetch` the client sends with: the platform's, or one of yours (a proxy agent, a test double). */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/** Headers as a plain object or a `Headers`; in an object, `null` removes a header the client would send. */
export type HeadersInput = Headers | Record<string, string | null | undefined>;

/** A fresh token pair from a refresh: keep both, the old refresh token is spent (docs/oauth.md, "Refresh"). */
export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives (an hour on Tessera). */
  expiresIn?: number;
  scope?: string;
}

/** Where the client tells what it does: requests, retries, refreshes. Never a credential, header or body. */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
}

export interface ClientOptions {
  /** An API key (`sk_live_…`). Defaults to `TESSERA_API_KEY`. */
  apiKey?: string;
  /** An OAuth access token, instead of an API key (docs/oauth.md). */
  accessToken?: string;
  /** With `clientId` (and `clientSecret` for a confidential app): refresh `accessToken` once it is refused. */
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
  /** Called with every new token pair, before the refused request is sent again: store them. */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
  /** The server's origin. Defaults to `TESSERA_BASE_URL`, then `http://127.0.0.1:8787`. */
  baseURL?: string;
  /** Retries of a failed request (connection errors, 408, 429, 5xx). Default 2. */
  maxRetries?: number;
  /** Milliseconds an attempt may take, body included (for a stream: until its headers). Default 60 000. */
  timeout?: number;
  fetch?: Fetch;
  /** Sent with every request. */
  defaultHeaders?: HeadersInput;
  logger?: Logger;
}

/** The last argument of every method. */
export interface RequestOptions {
  /** Milliseconds this request's attempts may take each. */
  timeout?: number;
  maxRetries?: number;
  headers?: HeadersInput;
  /**
   * The `Idempotency-Key` of a POST or PATCH. One is generated per call when left out, and sent again
   * on each retry of that call, so a retry never does the work twice (docs/api.md, "Idempotency-Key").
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 60_000;

interface EnvHosts {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { get?(name: string): string | undefined } };
}

/**
 * A variable of the environment, where there is one: Node's and Bun's `process.env`, Deno's
 * `Deno.env` (which throws without `--allow-env`); browsers and edge functions have none.
 */
export function readEnv(name: string): string | undefined {
  const hosts = globalThis as EnvHosts;
  try {
    const value = hosts.process?.env?.[name] ?? hosts.Deno?.env?.get?.(name);
    return value?.trim() || undefined;
  } catch {
    return undefined;
  }
}
