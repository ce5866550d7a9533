import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import {
  BlockedAddressError,
  disposable,
  guardedLookup,
  isPrivateAddress,
  type Disposable,
} from "../core/index.ts";

/**
 * The one HTTP client for requests a tenant aims (functions' `fetch`, webhook deliveries),
 * with node:http(s) because fetch cannot check the address it connects to. The check
 * sits in the socket's `lookup` (core's `guardedLookup`), so the address judged is the
 * address dialled: a name that resolves to a public address when it is saved and to
 * 127.0.0.1 later (DNS rebinding) is refused at connect time; an IP literal, dialled
 * without a lookup, is judged before connecting. Loopback, private, link-local and
 * metadata addresses are refused unless the operator allows private targets.
 *
 * It lives in runtime/, not beside core/addresses.ts: core does no I/O and this opens
 * sockets. runtime/ is the lowest layer that sends tenants' requests, and webhooks/ may
 * import it (the layer order runs core → … → runtime → webhooks).
 *
 * One exchange, no redirects followed (a caller that follows them sends the next hop),
 * the response body read up to a limit. Errors reject; callers word them for their user.
 */

export interface GuardedHttpOptions {
  allowPrivateTargets: boolean;
  /** Kept-alive sockets per protocol. */
  maxSockets: number;
}

export interface GuardedRequest {
  method: string;
  url: URL;
  /** Sent as given (lowercase names); `content-length` is set from the body. */
  headers: Record<string, string>;
  body?: Uint8Array | null;
  /** Aborts the exchange (the caller's deadline, shared by several requests): rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** One deadline for the whole exchange (connect, send, response, body): rejects with `OutboundTimeoutError`. */
  timeoutMs?: number;
  /** Body bytes read at most. */
  maxBodyBytes: number;
  /** Past `maxBodyBytes`: `fail` rejects (`ResponseTooLargeError`), `truncate` keeps the first bytes and stops reading. */
  overflow: "fail" | "truncate";
}

export interface GuardedResponse {
  status: number;
  statusText: string;
  /** Every header line as received, names lowercased. */
  rawHeaders: Array<[string, string]>;
  /** Node's parsed headers (duplicates joined or dropped as Node does). */
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  url: URL;
}

export interface GuardedHttpClient extends Disposable {
  request(request: GuardedRequest): Promise<GuardedResponse>;
  /** Closes the kept-alive sockets. */
  dispose(): Promise<void>;
}

/** A scheme other than `http:` or `https:`. */
export class UnsupportedSchemeError extends Error {
  constructor(readonly protocol: string) {
    super(`unsupported scheme ${protocol}`);
    this.name = "UnsupportedSchemeError";
  }
}

/** The request could not be made at all (an invalid header value, say): nothing was sent. */
export class OutboundRequestError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
    this.name = "OutboundRequestError";
  }
}

export class OutboundTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timeout after ${timeoutMs} ms`);
    this.name = "OutboundTimeoutError";
  }
}

export class ResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`response body exceeds ${maxBytes} bytes`);
    this.name = "ResponseTooLargeError";
  }
}

/**
 * @example
 *   const client = createGuardedHttpClient({ allowPrivateTargets: false, maxSockets: 64 });
 *   const response = await client.request({
 *     method: "POST", url: new URL(target), headers, body, timeoutMs: 15_000,
 *     maxBodyBytes: 20 * 1024, overflow: "truncate",
 *   });
 */
export function createGuardedHttpClient(options: GuardedHttpOptions): GuardedHttpClient {
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: options.maxSockets }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: options.maxSockets }),
  };
  return disposable({
    request: (request) => exchange(request, options.allowPrivateTargets, agents),
    async dispose() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  });
}

type Agents = { "http:": http.Agent; "https:": https.Agent };

function exchange(request: GuardedRequest, allowPrivate: boolean, agents: Agents): Promise<GuardedResponse> {
  const { url } = request;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.reject(new UnsupportedSchemeError(url.protocol));
  }
  // An IP literal is dialled without a lookup, so it is judged here.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.reject(new BlockedAddressError(url.hostname, literal));
  }
  const headers = { ...request.headers };
  if (request.body) headers["content-length"] = String(request.body.byteLength);

  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
    };
    const fail = (error: Error) => settle(() => reject(error));
    let req: http.ClientRequest;
    try {
      req = (url.protocol === "https:" ? https : http).request(url, {
        method: request.method,
        agent: agents[url.protocol as keyof Agents],
        lookup: allowPrivate ? undefined : guardedLookup,
        headers,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      return fail(new OutboundRequestError(error as Error));
    }
    if (request.timeoutMs !== undefined) {
      const timeoutMs = request.timeoutMs;
      timer = setTimeout(() => {
        fail(new OutboundTimeoutError(timeoutMs));
        req.destroy();
      }, timeoutMs);
    }
    req.on("error", fail);
    req.on("response", (res) =>
      readBody(res, request, (body) => settle(() => resolve(toResponse(res, body, url))), fail),
    );
    req.end(request.body ? Buffer.from(request.body) : undefined);
  });
}

/** Reads the body up to the limit: past it, fails or keeps what came and stops (the socket is not reused). */
function readBody(
  res: http.IncomingMessage,
  request: GuardedRequest,
  done: (body: Buffer) => void,
  fail: (error: Error) => void,
): void {
  const max = request.maxBodyBytes;
  const chunks: Buffer[] = [];
  let size = 0;
  res.on("data", (chunk: Buffer) => {
    if (request.overflow === "fail") {
      size += chunk.length;
      if (size > max) {
        res.destroy();
        return fail(new ResponseTooLargeError(max));
      }
      return void chunks.push(chunk);
    }
    if (size >= max) return;
    const part = chunk.subarray(0, max - size);
    chunks.push(part);
    size += part.length;
    if (size >= max) {
      done(Buffer.concat(chunks));
      res.destroy();
    }
  });
  res.on("end", () => done(Buffer.concat(chunks)));
  res.on("error", fail);
}

function toResponse(res: http.IncomingMessage, body: Buffer, url: URL): GuardedResponse {
  const rawHeaders: Array<[string, string]> = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    rawHeaders.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
  }
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? "",
    rawHeaders,
    headers: res.headers,
    body,
    url,
  };
}
