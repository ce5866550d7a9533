/**
 * One error base for the whole service. Codes say who is at fault and whether a
 * retry can help; only `api/` turns them into HTTP statuses (one table there).
 *
 * @example
 *   throw new AppError("not_found", "No such invoice: 'inv_123'");
 */

/** Codes for faults of the caller: fix the request, then retry. */
export const USER_ERROR_CODES = [
  "invalid_request", // malformed params, bad JSON, unknown enum value
  "validation_failed", // well-formed body that fails the schema
  "unauthenticated", // no credential
  "invalid_token", // bad or revoked credential
  "insufficient_scope",
  "not_found",
  "method_not_allowed",
  "conflict",
  "invalid_state_transition",
  "precondition_failed", // If-Match / If-None-Match (or a function's ifVersion) does not hold
  "idempotency_key_in_use",
  "idempotency_key_reused", // same key, different body
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "client_closed_request", // went away before its request body ended: never answered, only logged
] as const;

/**
 * Codes for faults of ours, of a dependency, or of a tenant's edge function (the
 * `function_*` ones: its request fails, the next gets a fresh isolate): the caller
 * may retry later.
 */
export const SYSTEM_ERROR_CODES = [
  "internal",
  "unavailable",
  "disposed",
  "function_failed", // threw at boot or at request time, or answered nonsense
  "function_cpu_limit",
  "function_memory_limit",
  "function_timeout", // wall time
] as const;

export type UserErrorCode = (typeof USER_ERROR_CODES)[number];
export type SystemErrorCode = (typeof SYSTEM_ERROR_CODES)[number];
export type ErrorCode = UserErrorCode | SystemErrorCode;

/** One field-level problem, as RFC 9457's extension member `errors` lists them. */
export interface FieldError {
  param: string;
  code: string;
  message: string;
}

export interface AppErrorOptions {
  cause?: unknown;
  errors?: FieldError[];
  /** Extra response headers the edge should set (e.g. `Retry-After`). */
  headers?: Record<string, string>;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly errors: FieldError[];
  readonly headers: Record<string, string>;

  constructor(code: C, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
  }

  /** True when the caller, not the service, is at fault. */
  get isUserError(): boolean {
    return (USER_ERROR_CODES as readonly string[]).includes(this.code);
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
