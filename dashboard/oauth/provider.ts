import { createPrivateKey, hkdfSync } from "node:crypto";
import type { Adapter, ClientLike, Configuration, KoaContextLike, Provider, TokenLike } from "oidc-provider";
import { safeEqual, sha256Hex, type Clock } from "../../core/index.ts";
import {
  createRecordStore,
  findOAuthClient,
  grantIsLive,
  OAUTH_SCOPES,
  userExists,
  type OAuthClient,
} from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { CSP } from "../layout.ts";
import { errorPage } from "./pages.ts";

/** Where the authorization server is mounted; the issuer is `<origin>/oauth`. */
export const OAUTH_PATH = "/oauth";
/** Access tokens live an hour (opaque: introspectable and revocable, unlike JWTs). */
export const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 90 * 24 * 3600;
/** A grant lasts as long as its installation: until it is disconnected (or its refresh tokens lapse). */
const GRANT_TTL_S = 10 * 365 * 24 * 3600;

export interface ProviderOptions {
  issuer: string;
  store: Store;
  clock: Clock;
  /** TESSERA_SECRET: every node derives the same cookie keys from it. */
  secret: string;
  /** Trust X-Forwarded-Proto/Host (a TLS-terminating proxy in front, `TESSERA_PUBLIC_URL` https). */
  proxy: boolean;
}

const UNSUPPORTED_RUNTIME = "oidc-provider WARNING: Unsupported runtime";

/**
 * Loads oidc-provider once. Its 9.x line prints "Unsupported runtime" on any Node.js before 22
 * when imported (lib/index.js); Tessera supports Node 20.19+, where this pinned version passes
 * the OAuth tests, so that notice would only alarm operators. Only that line is dropped, and
 * only while the module loads (the import is the one place it is printed).
 */
async function loadOidcProvider(): Promise<typeof import("oidc-provider")> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].includes(UNSUPPORTED_RUNTIME)) return;
    warn.apply(console, args);
  };
  try {
    return await import("oidc-provider");
  } finally {
    console.warn = warn;
  }
}

/** Builds the authorization server of one issuer (see `oidcConfiguration` for what it allows). */
export async function createProvider(options: ProviderOptions): Promise<Provider> {
  const { Provider, errors } = await loadOidcProvider();
  const resource = `${new URL(options.issuer).origin}/v1`;
  const provider = new Provider(options.issuer, oidcConfiguration(options, resource, errors.InvalidTarget));
  provider.proxy = options.proxy;
  // Client secrets are stored as SHA-256 (engines/oauth/apps.ts): compare hashes, in constant time.
  provider.Client.prototype.compareClientSecret = function compare(this: ClientLike, actual: string) {
    return typeof this.clientSecret === "string" && safeEqual(this.clientSecret, sha256Hex(actual));
  };
  return provider;
}

/**
 * OAuth 2.0 only (no OpenID Connect): authorization code with PKCE (S256; required for public
 * clients), refresh tokens rotated on every use (a reused one revokes the grant: oidc-provider's
 * reuse detection), client credentials, revocation (RFC 7009), introspection (RFC 7662) for
 * confidential clients, RFC 8414 metadata. No implicit or password grant, no dynamic
 * registration; redirect URIs compared exactly. Opaque access tokens for the `/v1` resource.
 */
function oidcConfiguration(
  options: ProviderOptions,
  resource: string,
  InvalidTarget: new (description?: string) => Error,
): Configuration {
  const records = createRecordStore(options.store, options.clock);
  return {
    adapter: (model: string) => adapterFor(options.store, records, model),
    findAccount: (_ctx: unknown, sub: string, token?: TokenLike) => findAccount(options.store, sub, token),
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `${OAUTH_PATH}/interaction/${interaction.uid}`,
    },
    cookies: { keys: [cookieKey(options.secret)] },
    jwks: { keys: [unusedSigningKey(options.secret)] },
    // The scopes clients may name (client metadata `scope` is checked against these, and metadata lists them).
    scopes: [...OAUTH_SCOPES],
    responseTypes: ["code"],
    clientAuthMethods: ["client_secret_basic", "client_secret_post", "none"],
    clientDefaults: { id_token_signed_response_alg: "EdDSA" },
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: (_ctx: unknown, client: ClientLike) => client.clientAuthMethod === "none" },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: {
        enabled: true,
        // RFC 7009 §2.1: a client revokes only the tokens issued to it.
        allowedPolicy: (_ctx: unknown, client: ClientLike, token: TokenLike) =>
          token.clientId === client.clientId,
      },
      introspection: {
        enabled: true,
        // RFC 7662 §4: only an authenticated (confidential) client, and only about its own tokens.
        allowedPolicy: (_ctx: unknown, client: ClientLike, token: TokenLike) =>
          client.clientAuthMethod !== "none" && token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new InvalidTarget(`the only resource is ${resource}`);
          return {
            scope: OAUTH_SCOPES.join(" "),
            audience: resource,
            accessTokenFormat: "opaque",
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
          };
        },
      },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      ClientCredentials: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: GRANT_TTL_S,
      Interaction: 3600,
      Session: 3600,
    },
    rotateRefreshToken: true,
    // Integrations run unattended: every app may refresh, without asking for `offline_access`.
    issueRefreshToken: (_ctx: unknown, client: ClientLike) => client.grantTypeAllowed("refresh_token"),
    expiresWithSession: () => false,
    // Consent is asked every time (the dashboard page picks the organization): an earlier grant
    // of the browser's provider session is never reused silently; only the one just consented is.
    loadExistingGrant: (ctx: KoaContextLike) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    renderError: async (ctx: KoaContextLike, out: { error: string; error_description?: string }) => {
      ctx.type = "html";
      ctx.set("Content-Security-Policy", CSP);
      ctx.body = await errorPage(out.error, out.error_description);
    },
  };
}

/** oidc-provider's storage: our Store; a client is an app (engines/oauth/apps.ts), never static config. */
function adapterFor(store: Store, records: ReturnType<typeof createRecordStore>, model: string): Adapter {
  if (model === "Client") {
    const unsupported = () => Promise.reject(new Error("clients are apps: manage them at /v1/oauth_apps"));
    return {
      find: async (id) => {
        const client = await findOAuthClient(store, id);
        return client ? clientMetadata(client) : undefined;
      },
      upsert: unsupported,
      findByUid: unsupported,
      findByUserCode: unsupported,
      consume: unsupported,
      destroy: unsupported,
      revokeByGrantId: unsupported,
    };
  }
  return {
    upsert: (id, payload, expiresIn) => records.upsert(model, id, payload, expiresIn),
    find: (id) => records.find(model, id),
    findByUid: (uid) => records.findByUid(model, uid),
    findByUserCode: (code) => records.findByUserCode(model, code),
    consume: (id) => records.consume(model, id),
    destroy: (id) => records.destroy(model, id),
    revokeByGrantId: (grantId) => records.revokeByGrantId(grantId),
  };
}

/** An app as RFC 7591 client metadata; a confidential app's `client_secret` is its SHA-256. */
function clientMetadata({ app, secretHash }: OAuthClient): Record<string, unknown> {
  const confidential = app.kind === "confidential";
  return {
    client_id: app.client_id,
    client_name: app.name,
    ...(app.logo_url ? { logo_uri: app.logo_url } : {}),
    redirect_uris: app.redirect_uris,
    response_types: ["code"],
    grant_types: confidential
      ? ["authorization_code", "refresh_token", "client_credentials"]
      : ["authorization_code", "refresh_token"],
    token_endpoint_auth_method: confidential ? "client_secret_basic" : "none",
    ...(confidential && secretHash ? { client_secret: secretHash } : {}),
    scope: app.scopes.join(" "),
  };
}

/**
 * The subject of a token is the member who consented. A code or refresh token is refused once its
 * installation is disconnected or that member left the organization or was deleted.
 */
async function findAccount(store: Store, sub: string, token: TokenLike | undefined) {
  const live = token?.grantId ? await grantIsLive(store, token.grantId, sub) : await userExists(store, sub);
  return live ? { accountId: sub, claims: () => ({ sub }) } : undefined;
}

/** The key that signs oidc-provider's cookies (interaction and session), the same on every node. */
function cookieKey(secret: string): string {
  return Buffer.from(hkdfSync("sha256", secret, "tessera", "oauth cookies v1", 32)).toString("base64url");
}

/**
 * oidc-provider needs a signing key set to start; Tessera issues no ID tokens or JWTs (opaque
 * access tokens only), so this Ed25519 key signs nothing. Derived from the secret so every node
 * publishes the same set instead of the library's development keys (and their warning).
 */
function unusedSigningKey(secret: string): Record<string, unknown> {
  const seed = Buffer.from(hkdfSync("sha256", secret, "tessera", "oauth jwks v1", 32));
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const jwk = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }).export({ format: "jwk" });
  return { ...jwk, use: "sig", alg: "EdDSA" };
}
