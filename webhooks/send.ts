import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { BlockedAddressError, guardedLookup, isPrivateAddress } from "../core/index.ts";

/**
 * One HTTP POST of one webhook, with node:http (fetch cannot check the address it
 * connects to). The address check sits in the socket's `lookup`, so the address
 * judged is the address dialled: a name that resolves to a public address when the
 * endpoint is saved and to 127.0.0.1 later (DNS rebinding) is refused at connect time.
 * Redirects are never followed: a 3xx is a failed attempt like any other non-2xx.
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

export interface Sender {
  send(request: SendRequest): Promise<SendResult>;
  /** Closes the kept-alive sockets. */
  dispose(): void;
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
  const lookup = options.allowPrivateTargets ? undefined : guardedLookup;
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
  return {
    send: (request) => sendOnce(request, options, agents, lookup),
    dispose() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

function sendOnce(
  request: SendRequest,
  options: SenderOptions,
  agents: { "http:": http.Agent; "https:": https.Agent },
  lookup: LookupFunction | undefined,
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
    return Promise.resolve(failed("invalid url"));
  }
  const protocol = url.protocol === "https:" ? "https:" : url.protocol === "http:" ? "http:" : undefined;
  if (!protocol) return Promise.resolve(failed(`unsupported scheme ${url.protocol}`));
  // An IP literal is dialled without a lookup, so it is judged here.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (!options.allowPrivateTargets && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.resolve(failed(new BlockedAddressError(url.hostname, literal).message));
  }

  const body = Buffer.from(request.body, "utf8");
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const transport = protocol === "https:" ? https : http;
    let req: http.ClientRequest;
    try {
      req = transport.request(url, {
        method: "POST",
        agent: agents[protocol],
        lookup,
        headers: {
          ...request.headers,
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          "content-length": String(body.length),
        },
      });
    } catch (error) {
      // An invalid custom header (a control character) is refused before any byte is sent.
      return resolve(failed(describeError(error as Error)));
    }
    // One deadline for the whole exchange (connect, send, response, body), not an idle timeout.
    const timer = setTimeout(() => {
      finish(failed(`timeout after ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    req.on("error", (error) => finish(failed(describeError(error))));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () => {
        const status = res.statusCode ?? 0;
        finish({
          startedAt,
          durationMs: elapsed(),
          statusCode: status,
          responseHeaders: flattenHeaders(res.headers),
          responseBody: Buffer.concat(chunks).toString("utf8"),
          error: statusError(status, res.headers.location),
        });
      };
      res.on("data", (chunk: Buffer) => {
        if (kept >= MAX_RESPONSE_BODY_BYTES) return;
        const part = chunk.subarray(0, MAX_RESPONSE_BODY_BYTES - kept);
        chunks.push(part);
        kept += part.length;
        // Enough kept: stop reading a large body, and do not reuse the socket it was on.
        if (kept >= MAX_RESPONSE_BODY_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on("end", done);
      res.on("error", (error) => finish(failed(describeError(error))));
    });
    req.end(body);
  });
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

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
