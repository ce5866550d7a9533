import { Hono, type Context } from "hono";
import type { AppEnv } from "../../api/env.ts";
import type { DashboardDeps } from "../env.ts";
import { SMALL_FORM_BYTES } from "../guard.ts";
import { createParts } from "../parts.ts";
import { interactionRoutes } from "./interaction.ts";
import { OAUTH_PATH } from "./provider.ts";
import { handOff } from "./server.ts";

export { createOAuthServer, type OAuthServer } from "./server.ts";
export { ACCESS_TOKEN_TTL_S, OAUTH_PATH } from "./provider.ts";

const METADATA = "/.well-known/oauth-authorization-server";

/**
 * The authorization server under `/oauth` (oidc-provider, reached through its Node callback), its
 * consent pages, and its RFC 8414 metadata where clients look for it: path-inserted for the
 * issuer `<origin>/oauth` (`/.well-known/oauth-authorization-server/oauth`, RFC 8414 §3.1), and at
 * the root for clients that try the origin first.
 */
export function oauthRoutes(deps: DashboardDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  interactionRoutes(app, deps.oauth, createParts(deps));
  // A token, revocation or introspection request is a few fields: read no further than a small form.
  const maxBodyBytes = Math.min(SMALL_FORM_BYTES, deps.config.maxBodyBytes);
  const metadata = async (c: Context<AppEnv>) =>
    handOff(c, await deps.oauth.providerFor(c), METADATA, maxBodyBytes);
  app.get(METADATA, metadata);
  app.get(`${METADATA}${OAUTH_PATH}`, metadata);
  app.all(`${OAUTH_PATH}/*`, async (c) =>
    handOff(c, await deps.oauth.providerFor(c), c.req.path.slice(OAUTH_PATH.length), maxBodyBytes),
  );
  return app;
}
