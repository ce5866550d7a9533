import type { Problem } from "../generated/types.ts";

/** One field's mistake in a problem's `errors` (`param` is `line_items[0].quantity`, `status`, `Idempotency-Key`…). */
export type FieldError = Problem["errors"][number];

/** The base of every error this library throws. */
export class TesseraError extends Error {
  override name = "TesseraError";
}

/** No API key or access token given, and none in `TESSERA_API_KEY`: thrown by `new Tessera()`. */
export class MissingCredentialsError extends TesseraError {
  override name = "MissingCredentialsError";
}

/**
 * An answer of the API that is not a success, or no answer at all (`APIConnectionError`). The
 * fields are the RFC 9457 problem's (docs/api.md, "Errors"); `headers` are the response's.
 *
 * @example
 *   try { await client.invoices.retrieve("inv_nope"); }
 *   catch (error) { if (error instanceof NotFoundError) console.log(error.code, error.requestId); }
 */
export class APIError extends TesseraError {
  override name = "APIError";
  /** The HTTP status; undefined when no answer came. */
  readonly status: number | undefined;
  /** The problem's code: `validation_failed`, `not_found`, `rate_limited`… */
  readonly code: string | undefined;
  /** The server's request id (the problem's `request_id`, or the `X-Request-Id` header). */
  readonly requestId: string | undefined;
  /** Each field's mistake, for a 400 or a 422. */
  readonly errors: FieldError[];
  readonly headers: Headers | undefined;
  /** The problem body as sent, when it was one. */
  readonly problem: Problem | undefined;

  constructor(
    message: string,
    init: { status?: number; headers?: Headers; problem?: Problem; cause?: unknown } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.headers = init.headers;
    this.problem = init.problem;
    this.code = init.problem?.code;
    this.requestId = init.problem?.request_id ?? init.headers?.get("x-request-id") ?? undefined;
    this.errors = init.problem?.errors ?? [];
  }
}

/** 400: a malformed request or a bad query parameter (`errors` names it). */
export class BadRequestError extends APIError {
  override name = "BadRequestError";
}
/** 401: no credential, or a bad, expired or revoked one (`code`: `unauthenticated` or `invalid_token`). */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
/** 403: the credential lacks the scope (`insufficient_scope`). */
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
/** 404: no such object in this organization, or no such route. */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
/** 409: a unique value taken, a forbidden transition, an Idempotency-Key still in flight. */
export class ConflictError extends APIError {
  override name = "ConflictError";
}
/** 422: the body fails validation (`errors` lists each field), or an Idempotency-Key was reused. */
export class UnprocessableEntityError extends APIError {
  override name = "UnprocessableEntityError";
}

/** 429: over the credential's rate limit. `resetAt` says when the window opens again. */
export class RateLimitError extends APIError {
  override name = "RateLimitError";
  /** When to try again: `Retry-After` (or `retry-after-ms`), else `X-RateLimit-Reset`. */
  readonly resetAt: Date | undefined;
  /** `X-RateLimit-Limit`: requests per window. */
  readonly limit: number | undefined;

  constructor(message: string, init: ConstructorParameters<typeof APIError>[1] & { now?: number } = {}) {
    super(message, init);
    const headers = init.headers;
    const now = init.now ?? Date.now();
    const after = headers ? retryAfterMsOf(headers, now) : undefined;
    const reset = Number(headers?.get("x-ratelimit-reset") ?? Number.NaN);
    this.resetAt =
      after !== undefined
        ? new Date(now + after)
        : Number.isFinite(reset)
          ? new Date(reset * 1000)
          : undefined;
    const limit = Number(headers?.get("x-ratelimit-limit") ?? Number.NaN);
    this.limit = Number.isFinite(limit) ? limit : undefined;
  }
}

/** 500 and above: the server's fault (a function's fault too: `function_failed`, `function_timeout`). */
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}

/** No answer: the connection failed or was cut (`cause` holds what the platform's fetch threw). */
export class APIConnectionError extends APIError {
  override name = "APIConnectionError";
  constructor(message = "Connection error", init: { cause?: unknown } = {}) {
    super(message, init);
  }
}

/** No answer within the request's `timeout`. */
export class APITimeoutError extends APIConnectionError {
  override name = "APITimeoutError";
  constructor(message = "Request timed out") {
    super(message);
  }
}

/** The caller's own `signal` aborted the request. */
export class APIUserAbortError extends APIError {
  override name = "APIUserAbortError";
  constructor(message = "Request was aborted", init: { cause?: unknown } = {}) {
    super(message, init);
  }
}

/** A webhook whose signature, timestamp or headers do not verify. */
export class WebhookVerificationError extends TesseraError {
  override name = "WebhookVerificationError";
}

/** Refreshing an OAuth access token failed (`error` is the token endpoint's, e.g. `invalid_grant`). */
export class TokenRefreshError extends TesseraError {
  override name = "TokenRefreshError";
  readonly status: number | undefined;
  readonly error: string | undefined;
  constructor(message: string, init: { status?: number; error?: string; cause?: unknown } = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.error = init.error;
  }
}

const BY_STATUS: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
};

/** The error for a non-2xx answer: its class by status, its fields from the problem body when there is one. */
export function errorFromResponse(status: number, headers: Headers, bodyText: string): APIError {
  const problem = problemOf(bodyText);
  const detail = problem?.detail ?? (bodyText.trim().slice(0, 200) || "no body");
  const message = `${status}${problem?.code ? ` ${problem.code}` : ""}: ${detail}`;
  const init = { status, headers, problem };
  if (status === 429) return new RateLimitError(message, init);
  if (status >= 500) return new InternalServerError(message, init);
  const ErrorClass = BY_STATUS[status] ?? APIError;
  return new ErrorClass(message, init);
}

function problemOf(text: string): Problem | undefined {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === "object" && "status" in body && "code" in body) return body as Problem;
  } catch {
    // Not JSON: a proxy's HTML page, say. The message shows its start.
  }
  return undefined;
}

/**
 * How long the server asked to wait, in ms: `retry-after-ms`, else `Retry-After` as seconds or as an
 * HTTP date (RFC 9110, section 10.2.3). Undefined when it did not say.
 */
export function retryAfterMsOf(headers: Headers, now: number): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
