import { APIPromise } from "./core/api-promise.ts";
import type { BaseClient, HttpMethod, RequestSpec } from "./core/base-client.ts";
import { TesseraError } from "./core/errors.ts";
import { encodePath } from "./core/http.ts";
import type { HeadersInput, RequestOptions } from "./core/options.ts";

/** A call of your function: what `fetch` would take, relative to its invoke URL. */
export interface FunctionInvokeInit {
  /** `GET` unless there is a body (then `POST`). */
  method?: HttpMethod;
  /** Below the function's URL: `"reports/2026"` calls `/v1/functions/<name>/invoke/reports/2026`. */
  path?: string;
  query?: Record<string, string | number | boolean | readonly (string | number)[] | undefined>;
  /** A plain object, array, number or boolean is sent as JSON; a string, bytes, Blob, form or URLSearchParams as is. */
  body?: unknown;
  headers?: HeadersInput;
}

/** Methods that may be sent twice (RFC 9110, section 9.2.2): retried like any request. */
const IDEMPOTENT = new Set<HttpMethod>(["GET", "PUT", "DELETE"]);

/**
 * What the platform answers for a function, rather than the function itself: thrown as `APIError`s.
 * Anything else, whatever its status, is the function's own response (docs/functions.md).
 */
const PLATFORM_CODES = new Set([
  "unauthenticated",
  "invalid_token",
  "insufficient_scope",
  "not_found",
  "payload_too_large",
  "rate_limited",
  "internal",
  "unavailable",
  "disposed",
  "function_failed",
  "function_cpu_limit",
  "function_memory_limit",
  "function_timeout",
]);

/**
 * Invokes a function (the `functions.invoke_<method>` operations): resolves with its `Response`
 * as it answered, whatever the status, streamed. A POST or PATCH is retried only when the platform
 * refused it before it ran (429): nothing makes a second run of your code safe but your code.
 */
export function invokeFunction(
  client: BaseClient,
  id: string,
  init: FunctionInvokeInit = {},
  options?: RequestOptions,
): APIPromise<Response> {
  const method = init.method ?? (init.body === undefined ? "GET" : "POST");
  const below = init.path ? `/${init.path.replace(/^\/+/, "")}` : "";
  const spec: RequestSpec = {
    method,
    path: `/v1/functions/${encodePath(id)}/invoke${below}`,
    query: init.query,
    accept: "*/*",
    stream: true,
    retry: IDEMPOTENT.has(method) ? "all" : "refusals",
    isOwnAnswer: (response, text) => !isPlatformProblem(response, text),
    ...(init.headers ? { headers: init.headers } : {}),
    ...bodyOf(init.body),
  };
  return new APIPromise(client.makeRequest(spec, options), (raw) => raw.response);
}

function bodyOf(body: unknown): Pick<RequestSpec, "body" | "rawBody"> {
  if (body === undefined) return {};
  if (typeof body === "string" || body instanceof ArrayBuffer || body instanceof Blob)
    return { rawBody: body };
  if (body instanceof URLSearchParams || body instanceof FormData) return { rawBody: body };
  if (ArrayBuffer.isView(body)) {
    return { rawBody: new Uint8Array(body.buffer, body.byteOffset, body.byteLength).slice() };
  }
  if (body instanceof ReadableStream) {
    throw new TesseraError(
      "A stream body cannot be retried: read it into bytes first, or call fetch yourself",
    );
  }
  return { body };
}

function isPlatformProblem(response: Response, text: string): boolean {
  if (!(response.headers.get("content-type") ?? "").startsWith("application/problem+json")) return false;
  try {
    const { code } = JSON.parse(text) as { code?: unknown };
    return typeof code === "string" && PLATFORM_CODES.has(code);
  } catch {
    return false;
  }
}
