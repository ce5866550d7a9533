import type { Context } from "hono";
import type { ZodError } from "zod";
import { AppError, isAppError, type ErrorCode, type FieldError, type Logger } from "../core/index.ts";
import { JSON_LINE_END } from "./json-lines.ts";

/** The one table from error codes to HTTP statuses and RFC 9457 titles. */
const STATUS: Record<ErrorCode, { status: number; title: string }> = {
  invalid_request: { status: 400, title: "Bad request" },
  validation_failed: { status: 422, title: "Validation failed" },
  unauthenticated: { status: 401, title: "Unauthenticated" },
  invalid_token: { status: 401, title: "Invalid credential" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  invalid_state_transition: { status: 409, title: "Invalid state transition" },
  precondition_failed: { status: 412, title: "Precondition failed" },
  idempotency_key_in_use: { status: 409, title: "Idempotency key in use" },
  idempotency_key_reused: { status: 422, title: "Idempotency key reused" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal: { status: 500, title: "Internal server error" },
  unavailable: { status: 503, title: "Service unavailable" },
  disposed: { status: 503, title: "Service unavailable" },
  function_failed: { status: 500, title: "Function failed" },
  function_cpu_limit: { status: 500, title: "Function exceeded its CPU time limit" },
  function_memory_limit: { status: 500, title: "Function exceeded its memory limit" },
  function_timeout: { status: 504, title: "Function timed out" },
};

export function statusOf(code: ErrorCode): number {
  return STATUS[code].status;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors: FieldError[];
}

/** An AppError as an `application/problem+json` answer: status, headers and body text. */
export function problemParts(
  error: AppError,
  requestId: string,
): { status: number; headers: Record<string, string>; body: string } {
  const { status, title } = STATUS[error.code];
  const body: Problem = {
    type: `https://tessera.dev/problems/${error.code.replaceAll("_", "-")}`,
    title,
    status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
    errors: error.errors,
  };
  return {
    status,
    headers: { "content-type": "application/problem+json", ...error.headers },
    body: `${JSON.stringify(body)}${JSON_LINE_END}`,
  };
}

/** Renders an AppError as an `application/problem+json` Response. */
export function problemResponse(error: AppError, requestId: string): Response {
  const { status, headers, body } = problemParts(error, requestId);
  return new Response(body, { status, headers: new Headers(headers) });
}

/**
 * What the client is told of anything thrown: an AppError as is (logged when it is not
 * the client's fault), anything else as a bare 500 whose cause is logged with the request id.
 */
export function asAppError(error: unknown, requestId: string, log: Logger): AppError {
  if (isAppError(error)) {
    if (!error.isUserError)
      log.error("request failed", { request_id: requestId, code: error.code, error, cause: error.cause });
    return error;
  }
  // Never leak internals: log the cause with the request id, answer a bare 500.
  log.error("unhandled error", { request_id: requestId, error, stack: (error as Error)?.stack });
  return new AppError("internal", "Something went wrong on our side; the request id identifies it");
}

/** Field errors from a zod failure: `line_items.0.quantity` → `line_items[0].quantity`. */
export function fieldErrors(error: ZodError): FieldError[] {
  return error.issues.map((issue) => {
    const path = issue.path.reduce<string>(
      (acc, part) =>
        typeof part === "number" ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
      "",
    );
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const param = keys.length > 0 ? [path, keys[0]].filter(Boolean).join(".") : path;
    return { param, code: issue.code, message: issue.message };
  });
}

export function validationError(error: ZodError, code: "validation_failed" | "invalid_request"): AppError {
  const errors = fieldErrors(error);
  const first = errors[0];
  const detail = first ? `${first.param || "body"}: ${first.message}` : "Invalid request";
  return new AppError(code, detail, { errors });
}

export function requestIdOf(c: Context): string {
  return (c.get("requestId") as string | undefined) ?? "unknown";
}
