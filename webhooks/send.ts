import type { IncomingHttpHeaders } from "node:http";
import { BlockedAddressError, disposable, type Disposable } from "../core/index.ts";
import { createGuardedHttpClient, OutboundRequestError, type GuardedHttpClient } from "../runtime/index.ts";

/**
 * One HTTP POST of one webhook, through the guarded HTTP client functions' `fetch` uses
 * too (runtime/guarded-http.ts: the address judged is the address dialled, so DNS
 * rebinding is refused at connect time). Redirects are never followed: a 3xx is a
 * failed attempt like any other non-2xx. Only the first 20 KB of a response are kept.
 */

/** What is kept of a response body: the first 20 KB. */
export const MAX_RESPONSE_BODY_BYTES = 20 * 1024;
export const USER_AGENT = "Tessera-Webhooks/1";

export interface SendRequest {
  url: string;
  /** The exact bytes signed. */
  body: string;
  headers: Record<string, string>;
}

export interface SendResult {
  startedAt: Date;
  durationMs: number;
  /** Null when no response came. */
  statusCode: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  /** Why the attempt failed without a 2xx: `timeout after 15000 ms`, `connection refused`… */
  error: string | null;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** Injected wall time for `startedAt` (durations use the monotonic clock). */
  now: () => Date;
}

export interface Sender extends Disposable {
  send(request: SendRequest): Promise<SendResult>;
  /** Closes the kept-alive sockets. */
  dispose(): Promise<void>;
}

/**
 * A sender with kept-alive connections per origin. Each `send` resolves (never
 * rejects) with what happened.
 *
 * @example
 *   const sender = createSender({ timeoutMs: 15_000, allowPrivateTargets: false, now: () => clock.now() });
 *   const result = await sender.send({ url, body, headers });
 */
export function createSender(options: SenderOptions): Sender {
  const client = createGuardedHttpClient({
    allowPrivateTargets: options.allowPrivateTargets,
    maxSockets: 64,
  });
  return disposable({
    send: (request) => sendOnce(request, options, client),
    dispose: () => client.dispose(),
  });
}

async function sendOnce(
  request: SendRequest,
  options: SenderOptions,
  client: GuardedHttpClient,
): Promise<SendResult> {
  const startedAt = options.now();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string): SendResult => ({
    startedAt,
    durationMs: elapsed(),
    statusCode: null,
    responseHeaders: null,
    responseBody: null,
    error,
  });
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return failed("invalid url");
  }
  try {
    const response = await client.request({
      method: "POST",
      url,
      headers: { ...request.headers, "content-type": "application/json", "user-agent": USER_AGENT },
      body: Buffer.from(request.body, "utf8"),
      timeoutMs: options.timeoutMs,
      maxBodyBytes: MAX_RESPONSE_BODY_BYTES,
      overflow: "truncate",
    });
    return {
      startedAt,
      durationMs: elapsed(),
      statusCode: response.status,
      responseHeaders: flattenHeaders(response.headers),
      responseBody: response.body.toString("utf8"),
      error: statusError(response.status, response.headers.location),
    };
  } catch (error) {
    return failed(describeError(error instanceof OutboundRequestError ? error.cause : (error as Error)));
  }
}

function statusError(status: number, location: string | undefined): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) {
    return `redirect not followed (status ${status}${location ? `, location ${location.slice(0, 200)}` : ""})`;
  }
  return `status ${status}`;
}

function describeError(error: Error & { code?: string }): string {
  if (error instanceof BlockedAddressError) return error.message;
  switch (error.code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `dns: ${error.code}`;
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
