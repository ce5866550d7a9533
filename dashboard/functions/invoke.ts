import { principalOfSession } from "../session.ts";
import type { Context } from "hono";
import { AppError, isAppError } from "../../core/index.ts";
import type { FunctionObject, FunctionResponse } from "../../runtime/index.ts";
import type { AppEnv } from "../../api/env.ts";
import {
  headersFromFetch,
  serveInvocation,
  type InvocationDeps,
  type InvocationOutcome,
} from "../../api/invocation/index.ts";
import { problemParts } from "../../api/problem.ts";
import type { Signed, Form } from "../parts.ts";
import { textOf } from "../parts.ts";
import { userError } from "./function-page.ts";

/**
 * The request builder: method, path, headers and body, sent to the function through the same
 * path `/v1/functions/{name}/invoke` takes (api/invocation/serve.ts: permission, rate limit, body
 * limit, the isolate), as the signed-in user. The answer, or the problem /v1 would have answered,
 * comes back for the page to show: the body as text, at most `MAX_SHOWN_BYTES` of it.
 */

export const INVOKE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export const MAX_SHOWN_BYTES = 64 * 1024;
const MAX_HEADERS = 50;

/** What the builder's form holds, kept to fill the form again. */
export interface InvokeRequest {
  method: string;
  path: string;
  headers: string;
  body: string;
}

/** What the function answered, as the page shows it. */
export interface InvokeResult {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  /** The body as text; `binary` when it is not UTF-8 text. */
  body: string;
  binary: boolean;
  truncated: boolean;
  requestId: string;
}

export const EMPTY_REQUEST: InvokeRequest = { method: "GET", path: "/", headers: "", body: "" };

export function invokeRequestOf(form: Form): InvokeRequest {
  return {
    method: textOf(form, "method").toUpperCase(),
    path: textOf(form, "path").trim(),
    headers: textOf(form, "headers"),
    body: textOf(form, "body"),
  };
}

/**
 * Sends the built request. Field errors (a bad method, path or header line) come back as
 * `errors`; what the API would refuse (a body over the limit, a rate limit, the function failing)
 * comes back as its problem response.
 */
export async function invokeFunction<E extends AppEnv>(
  c: Context<E>,
  deps: InvocationDeps,
  signed: Signed,
  fn: FunctionObject,
  request: InvokeRequest,
): Promise<{ result: InvokeResult } | { errors: Record<string, string> }> {
  const base = `/v1/functions/${fn.name}/invoke`;
  // The URL the function would see on its own origin, when it has one (TESSERA_FUNCTIONS_URL).
  const origin = deps.config.functionsOrigin?.url ?? new URL(c.req.url).origin;
  const checked = checkRequest(request, origin, base);
  if ("errors" in checked) return checked;
  const requestId = c.get("requestId");
  const body = Buffer.from(request.body);
  const outcome: InvocationOutcome = { headers: {}, principal: undefined };
  try {
    const response = await serveInvocation(
      deps,
      {
        ref: fn.name,
        requestId,
        method: request.method,
        url: checked.url,
        authorization: undefined,
        carried: principalOfSession(signed.session),
        headers: () => checked.headers,
        readBody: (maxBytes) =>
          body.length > maxBytes
            ? Promise.reject(new AppError("payload_too_large", `Request body exceeds ${maxBytes} bytes`))
            : Promise.resolve(body),
        depth: 0,
      },
      outcome,
    );
    return { result: await shown(response, requestId) };
  } catch (error) {
    const problem = problemParts(userOrFunctionError(error), requestId);
    return {
      result: {
        status: problem.status,
        statusText: "",
        headers: Object.entries(problem.headers),
        body: problem.body,
        binary: false,
        truncated: false,
        requestId,
      },
    };
  }
}

/** The caller's fault, or the function's (it threw, ran out of time or memory): shown as /v1 answers them. */
function userOrFunctionError(error: unknown): AppError {
  if (isAppError(error) && error.code.startsWith("function_")) return error;
  return userError(error);
}

/** The request line and headers the builder describes, or why they cannot be sent. */
function checkRequest(
  request: InvokeRequest,
  origin: string,
  base: string,
): { url: string; headers: Array<[string, string]> } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (!(INVOKE_METHODS as readonly string[]).includes(request.method)) {
    errors.method = `one of ${INVOKE_METHODS.join(", ")}`;
  }
  const url = urlBelow(origin, base, request.path);
  if (!url) errors.path = "a path below the function, like / or /items?limit=10";
  const headers = new Headers();
  const lines = request.headers.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines.length > MAX_HEADERS) errors.headers = `at most ${MAX_HEADERS} headers`;
  for (const [index, line] of lines.slice(0, MAX_HEADERS).entries()) {
    const colon = line.indexOf(":");
    try {
      if (colon < 1) throw new TypeError("no name");
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      errors.headers ??= `line ${index + 1}: write each header as Name: value`;
    }
  }
  if (Object.keys(errors).length > 0 || !url) return { errors };
  return { url, headers: headersFromFetch(headers, false) };
}

/** The function's URL with `path` after it, unless dot segments would lead elsewhere. */
function urlBelow(origin: string, base: string, path: string): string | undefined {
  if (path !== "" && !/^[/?][^\s#]{0,2000}$/.test(path)) return undefined;
  try {
    const url = new URL(`${base}${path}`, origin);
    return url.pathname === base || url.pathname.startsWith(`${base}/`) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The answer as text, read up to `MAX_SHOWN_BYTES` (a stream is cancelled there). */
async function shown(response: FunctionResponse, requestId: string): Promise<InvokeResult> {
  const { bytes, truncated } = await readShown(response.body);
  let body: string;
  let binary = false;
  try {
    body = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    body = `${bytes.length} bytes that are not UTF-8 text`;
    binary = true;
  }
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    body,
    binary,
    truncated,
    requestId,
  };
}

async function readShown(body: FunctionResponse["body"]): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (body === null) return { bytes: new Uint8Array(0), truncated: false };
  if (typeof body === "string" || body instanceof Uint8Array) {
    const bytes = typeof body === "string" ? Buffer.from(body) : body;
    return { bytes: bytes.subarray(0, MAX_SHOWN_BYTES), truncated: bytes.length > MAX_SHOWN_BYTES };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), truncated: false };
    chunks.push(value);
    size += value.byteLength;
    if (size > MAX_SHOWN_BYTES) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks).subarray(0, MAX_SHOWN_BYTES), truncated: true };
    }
  }
}
