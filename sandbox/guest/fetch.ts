import { hostCall } from "./bridge.ts";
import { consume } from "./body.ts";
import { DOMException } from "./dom-exception.ts";
import { Headers } from "./headers.ts";
import { Request, Response, type RequestInit } from "./http.ts";
import { URL } from "./url.ts";

/**
 * fetch (Fetch Standard §5.6) through the host: the body is read whole, the host
 * applies its guards and limits and answers with the whole response. A refusal is a
 * TypeError, as a network error is in the spec.
 */
interface HostResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  url: string;
}

async function send(request: Request, via: "network" | "platform", url: string): Promise<Response> {
  const signal = request.signal;
  signal.throwIfAborted();
  const body = request.body === null ? null : await consume(request.bodyState());
  const call = hostCall("fetch()", "fetch", {
    via,
    method: request.method,
    url,
    headers: Headers.toList(request.headers),
    body,
  }) as Promise<HostResponse>;
  const answer = await new Promise<HostResponse>((resolve, reject) => {
    const onAbort = () =>
      reject(signal.reason ?? new DOMException("The operation was aborted", "AbortError"));
    signal.addEventListener("abort", onAbort, { once: true });
    call.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
  return Response.fromHost(answer.status, answer.statusText, answer.headers, answer.body, answer.url);
}

export async function fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const protocol = new URL(request.url).protocol;
  if (protocol !== "http:" && protocol !== "https:")
    throw new TypeError(`fetch: unsupported scheme ${protocol}`);
  return send(request, "network", request.url);
}

const PLATFORM_BASE = "https://platform.tessera.invalid";

/** `ctx.platform.fetch("/v1/invoices")`: the Tessera API as the caller; `path` is relative to it. */
export async function platformFetch(path: string | URL | Request, init?: RequestInit): Promise<Response> {
  const target = path instanceof Request ? path.url : String(path);
  const url = new URL(target, `${PLATFORM_BASE}/`);
  if (url.origin !== PLATFORM_BASE)
    throw new TypeError("ctx.platform.fetch takes a path of the Tessera API, not a URL");
  const request = new Request(path instanceof Request ? path : url.href, init);
  return send(request, "platform", `${url.pathname}${url.search}`);
}
