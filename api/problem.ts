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
  // nginx's status: no one reads the answer, but the request log and metrics count a 4xx, not a 500.
  client_closed_request: { status: 499, title: "Client closed request" },
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
  /** How many field errors were left out of `errors` (MAX_PROBLEM_ERRORS); absent when none. */
  errors_omitted?: number;
}

/**
 * Field errors a problem lists at most. A body of 100,000 bad values has as many errors: the
 * first hundred say what is wrong, `errors_omitted` how many more there are, and the answer
 * stays small whatever was sent.
 */
export const MAX_PROBLEM_ERRORS = 100;
/** Characters of a detail, param or message shown: a key sent may be as long as the body. */
const MAX_PROBLEM_TEXT = 1_000;

/** An AppError as an `application/problem+json` answer: status, headers and body text. */
export function problemParts(
  error: AppError,
  requestId: string,
): { status: number; headers: Record<string, string>; body: string } {
  const { status, title } = STATUS[error.code];
  const omitted = Math.max(0, error.errors.length - MAX_PROBLEM_ERRORS);
  const body: Problem = {
    type: `https://tessera.dev/problems/${error.code.replaceAll("_", "-")}`,
    title,
    status,
    detail: clip(error.message) + (omitted > 0 ? ` (and ${omitted} more errors, not listed)` : ""),
    code: error.code,
    request_id: requestId,
    errors: error.errors.slice(0, MAX_PROBLEM_ERRORS).map(clipped),
  };
  if (omitted > 0) body.errors_omitted = omitted;
  return {
    status,
    headers: { "content-type": "application/problem+json", ...error.headers },
    body: `${JSON.stringify(body)}${JSON_LINE_END}`,
  };
}

function clip(text: string): string {
  return text.length > MAX_PROBLEM_TEXT ? `${text.slice(0, MAX_PROBLEM_TEXT)}…` : text;
}

function clipped(error: FieldError): FieldError {
  const { param, code, message } = error;
  if (param.length <= MAX_PROBLEM_TEXT && message.length <= MAX_PROBLEM_TEXT) return error;
  return { param: clip(param), code, message: clip(message) };
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

/**
 * Field errors from a zod failure: `line_items.0.quantity` → `line_items[0].quantity`; an
 * unknown key is one error of its own (zod's one message would list every key sent).
 */
export function fieldErrors(error: ZodError): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const path = issue.path.reduce<string>(
      (acc, part) =>
        typeof part === "number" ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
      "",
    );
    // A record's bad key: what is wrong with it, not zod's "Invalid key in record".
    const message =
      issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    if (issue.code !== "unrecognized_keys") return [{ param: path, code: issue.code, message }];
    return issue.keys.map((key) => ({
      param: path ? `${path}.${key}` : key,
      code: issue.code,
      message: "is not a known field",
    }));
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
