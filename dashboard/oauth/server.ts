import { IncomingMessage, type ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import type { Provider } from "oidc-provider";
import { AppError, type Clock, type Config } from "../../core/index.ts";
import type { Store } from "../../store/index.ts";
import { readIncoming } from "../../api/middleware/json-body.ts";
import { createProvider, OAUTH_PATH } from "./provider.ts";

/** Without a public URL the issuer follows the request's origin; this many are kept at most. */
const MAX_ISSUERS = 8;

/**
 * The authorization server of this process: one oidc-provider per issuer (`TESSERA_PUBLIC_URL` +
 * `/oauth`, else the request's origin + `/oauth`), built on first use; they share the store, so a
 * token issued under one issuer works on `/v1` whatever origin it reaches.
 */
export interface OAuthServer {
  providerFor(c: Context): Promise<Provider>;
  issuerFor(c: Context): string;
}

export interface OAuthServerOptions {
  config: Config;
  store: Store;
  clock: Clock;
  secret: string;
}

export function createOAuthServer(options: OAuthServerOptions): OAuthServer {
  const providers = new Map<string, Promise<Provider>>();
  const { publicUrl } = options.config;
  const issuerFor = (c: Context) => `${publicUrl ?? new URL(c.req.url).origin}${OAUTH_PATH}`;
  return {
    issuerFor,
    providerFor(c) {
      const issuer = issuerFor(c);
      let provider = providers.get(issuer);
      if (!provider) {
        if (providers.size >= MAX_ISSUERS) providers.delete(providers.keys().next().value!);
        provider = createProvider({
          issuer,
          store: options.store,
          clock: options.clock,
          secret: options.secret,
          proxy: publicUrl?.startsWith("https:") ?? false,
        });
        provider.catch(() => providers.delete(issuer));
        providers.set(issuer, provider);
      }
      return provider;
    },
  };
}

/** The Node request and response under Hono (@hono/node-server sets them as `c.env`). */
export function nodeOf(c: Context): { req: IncomingMessage; res: ServerResponse } {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  if (!env?.incoming || !env.outgoing) {
    throw new AppError("unavailable", "The authorization server answers over HTTP (tessera serve) only");
  }
  return { req: env.incoming, res: env.outgoing };
}

const callbacks = new WeakMap<Provider, (req: IncomingMessage, res: ServerResponse) => void>();

/** Methods whose body is read before the provider sees the request. */
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/**
 * Hands the request to oidc-provider's Node callback as `path` below the mount point (it reads
 * `originalUrl` to know where it is mounted) and resolves once it has answered on the socket.
 * A body (token, revocation, introspection requests) is read here first, under `maxBodyBytes`: 413
 * past it, as on `/v1`, whatever Content-Length says and however it is sent (oidc-provider's own
 * 56 KiB limit answers 400, and reads only the types it parses).
 */
export async function handOff(
  c: Context,
  provider: Provider,
  path: string,
  maxBodyBytes: number,
): Promise<Response> {
  const { req: incoming, res } = nodeOf(c);
  const req = WITH_BODY.has(incoming.method ?? "")
    ? replayed(incoming, await readIncoming(incoming, maxBodyBytes))
    : incoming;
  let callback = callbacks.get(provider);
  if (!callback) callbacks.set(provider, (callback = provider.callback()));
  const search = new URL(c.req.url).search;
  (req as IncomingMessage & { originalUrl?: string }).originalUrl = `${OAUTH_PATH}${path}${search}`;
  req.url = `${path}${search}`;
  await new Promise<void>((resolve) => {
    res.once("close", resolve);
    callback(req, res);
  });
  return RESPONSE_ALREADY_SENT;
}

/**
 * The request again, its body the bytes already read: oidc-provider reads the body off the Node
 * request itself (lib/shared/selective_body.js), and the original has been read to its end.
 */
function replayed(original: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(original.socket);
  copy.method = original.method;
  copy.url = original.url;
  copy.headers = original.headers;
  copy.rawHeaders = original.rawHeaders;
  copy.httpVersion = original.httpVersion;
  copy.httpVersionMajor = original.httpVersionMajor;
  copy.httpVersionMinor = original.httpVersionMinor;
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}
