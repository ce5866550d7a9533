import type { IncomingMessage, ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import type { Provider } from "oidc-provider";
import { AppError, type Clock, type Config } from "../../core/index.ts";
import type { Store } from "../../store/index.ts";
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

/**
 * Hands the request to oidc-provider's Node callback as `path` below the mount point (it reads
 * `originalUrl` to know where it is mounted) and resolves once it has answered on the socket.
 */
export async function handOff(c: Context, provider: Provider, path: string): Promise<Response> {
  const { req, res } = nodeOf(c);
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
