import * as oauth from "oauth4webapi";
import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../engines/index.ts";
import { useTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * OAuth 2.0 for integrations, driven by a real client library (oauth4webapi) against the running
 * server: an app registered on /v1/oauth_apps, the code + PKCE flow through the consent pages (a
 * signed-in member's cookies and CSRF token, as a browser sends them), the token on /v1, refresh
 * with rotation, disconnect; and what must fail: a wrong verifier, a reused code or refresh token, a
 * redirect URI that is not registered, scopes beyond the app or the member's role, another
 * organization's data, revoked, expired and orphaned tokens. oidc-provider keeps real time for what
 * it checks itself; /v1 checks a token's expiry on the app's clock, which the expiry test steps.
 */
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;
/** A page's CSRF token, as its forms send it. */
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
const REDIRECT = "https://integration.example/callback";

/** Cookies as a browser keeps them, by name (paths do not matter to these requests). */
class CookieJar {
  readonly #values = new Map<string, string>();
  constructor(...initial: string[]) {
    for (const cookie of initial) this.#set(cookie);
  }
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) this.#set(line.split(";")[0]!);
  }
  header(): string {
    return [...this.#values].map(([name, value]) => `${name}=${value}`).join("; ");
  }
  #set(pair: string): void {
    const at = pair.indexOf("=");
    this.#values.set(pair.slice(0, at), pair.slice(at + 1));
  }
}

interface App {
  id: string;
  client_id: string;
  client_secret: string | null;
  scopes: string[];
}

describe.each(storeKinds())("OAuth 2.0 on $name", (kind) => {
  const t = useTestApp(kind, { http: true });
  let base: string;
  let as: oauth.AuthorizationServer;
  let org: TestOrg;
  let owner: TestMember;
  let app: App;

  beforeAll(async () => {
    const health = await t.fetch("/healthz");
    await health.arrayBuffer();
    base = new URL(health.url).origin;
    const issuer = new URL(`${base}/oauth`);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...INSECURE }),
    );
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
    app = await registerApp(t, org, { scopes: ["finance:read", "finance:write", "growth:read"] });
  });

  /**
   * The browser's part of the code flow: the authorization request, the consent page (organization
   * chosen), Approve (or Deny), and the redirect back. Returns where the app is sent back to.
   */
  async function consent(options: {
    app: App;
    member: TestMember;
    orgId: string;
    scope: string;
    challenge?: string;
    redirectUri?: string;
    deny?: boolean;
  }): Promise<{ callback: URL; state: string }> {
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: options.app.client_id,
      redirect_uri: options.redirectUri ?? REDIRECT,
      response_type: "code",
      scope: options.scope,
      state,
      ...(options.challenge ? { code_challenge: options.challenge, code_challenge_method: "S256" } : {}),
    }).toString();
    const jar = new CookieJar(options.member.cookie);
    let response = await step(jar, url.href);
    expect(response.status).toBe(303);
    const interaction = new URL(response.headers.get("location")!, base);
    expect(interaction.pathname).toMatch(/^\/oauth\/interaction\//);
    const page = await step(jar, `${interaction.href}?org=${options.orgId}`);
    expect(page.status).toBe(200);
    // Approve and Deny end at the app: the page's form-action allows its redirect URI's origin.
    expect(page.headers.get("content-security-policy")).toContain(
      `form-action 'self' ${new URL(options.redirectUri ?? REDIRECT).origin}`,
    );
    const csrf = csrfOf(await page.text());
    response = await step(jar, `${interaction.href}/${options.deny ? "deny" : "approve"}`, {
      _csrf: csrf,
      org: options.orgId,
    });
    expect(response.status).toBe(303);
    response = await step(jar, new URL(response.headers.get("location")!, base).href);
    expect(response.status).toBe(303);
    return { callback: new URL(response.headers.get("location")!), state };
  }

  async function step(jar: CookieJar, url: string, form?: Record<string, string>): Promise<Response> {
    const response = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: jar.header(),
        ...(form ? { "content-type": "application/x-www-form-urlencoded", origin: base } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    jar.take(response);
    return response;
  }

  const clientOf = (registered: App): oauth.Client => ({ client_id: registered.client_id });
  const authOf = (registered: App): oauth.ClientAuth =>
    registered.client_secret ? oauth.ClientSecretBasic(registered.client_secret) : oauth.None();

  /** The whole code + PKCE flow: consent as `member`, then the code exchanged for tokens. */
  async function authorize(
    options: { app?: App; member?: TestMember; orgId?: string; scope?: string } = {},
  ): Promise<oauth.TokenEndpointResponse> {
    const registered = options.app ?? app;
    const verifier = oauth.generateRandomCodeVerifier();
    const { callback, state } = await consent({
      app: registered,
      member: options.member ?? owner,
      orgId: options.orgId ?? org.id,
      scope: options.scope ?? "finance:read finance:write",
      challenge: await oauth.calculatePKCECodeChallenge(verifier),
    });
    const params = oauth.validateAuthResponse(as, clientOf(registered), callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      clientOf(registered),
      authOf(registered),
      params,
      REDIRECT,
      verifier,
      INSECURE,
    );
    return oauth.processAuthorizationCodeResponse(as, clientOf(registered), response);
  }

  async function refresh(registered: App, token: string): Promise<oauth.TokenEndpointResponse> {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      clientOf(registered),
      authOf(registered),
      token,
      INSECURE,
    );
    return oauth.processRefreshTokenResponse(as, clientOf(registered), response);
  }

  const api = (method: string, path: string, token: string, body?: unknown) =>
    t.request(method, path, { key: token, ...(body ? { body } : {}) });

  async function expectInvalidToken(token: string): Promise<void> {
    const response = await api("GET", "/v1/me", token);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
  }

  it("publishes RFC 8414 metadata at the path-inserted well-known URI: code + PKCE S256, no implicit or password", () => {
    expect(as.issuer).toBe(`${base}/oauth`);
    expect(as.response_types_supported).toEqual(["code"]);
    expect(as.grant_types_supported).toEqual(
      expect.arrayContaining(["authorization_code", "refresh_token", "client_credentials"]),
    );
    expect(as.grant_types_supported).not.toContain("implicit");
    expect(as.grant_types_supported).not.toContain("password");
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.revocation_endpoint).toBe(`${base}/oauth/token/revocation`);
    expect(as.introspection_endpoint).toBe(`${base}/oauth/token/introspection`);
    expect(as.registration_endpoint).toBeUndefined();
    expect(as.scopes_supported).toEqual(expect.arrayContaining(["finance:read", "keys:write"]));
  });

  it("completes code + PKCE, reads overdue invoices with the token, refreshes, and stops at disconnect", async () => {
    const overdue = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Acme", currency: "EUR", amount: 120, due_date: "2020-01-10" },
    });
    expect(overdue.status).toBe(201);
    const tokens = await authorize();
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeDefined();
    expect(tokens.scope?.split(" ").sort()).toEqual(["finance:read", "finance:write"]);

    const list = await api("GET", "/v1/invoices?status=overdue", tokens.access_token);
    expect(list.status).toBe(200);
    expect(list.body.data.map((invoice: { id: string }) => invoice.id)).toContain(overdue.body.id);
    expect(list.headers.get("x-ratelimit-limit")).toBeTruthy();
    expect(list.headers.get("x-ratelimit-remaining")).toBeTruthy();

    const me = await api("GET", "/v1/me", tokens.access_token);
    expect(me.body.organization.id).toBe(org.id);
    expect(me.body.credential).toMatchObject({
      type: "oauth",
      app: { id: app.id, client_id: app.client_id },
      user: { id: owner.userId, role: "owner" },
      scopes: ["finance:read", "finance:write"],
    });
    expect(await api("GET", "/v1/contacts", tokens.access_token)).toMatchObject({ status: 403 });

    const renewed = await refresh(app, tokens.refresh_token!);
    expect(renewed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await api("GET", "/v1/invoices", renewed.access_token)).status).toBe(200);

    const installed = await t.request("GET", "/v1/oauth_installations", { key: org.key });
    const installation = installed.body.data.find((row: { app: { id: string } }) => row.app.id === app.id);
    expect(installation).toMatchObject({
      scopes: ["finance:read", "finance:write"],
      granted_by: { id: owner.userId, email: owner.email },
    });
    const disconnected = await t.request("POST", `/v1/oauth_installations/${installation.id}/disconnect`, {
      key: org.key,
    });
    expect(disconnected.status).toBe(200);
    await expectInvalidToken(renewed.access_token);
    await expect(refresh(app, renewed.refresh_token!)).rejects.toThrow();

    const events = await t.request("GET", "/v1/events?type=oauth_app.deauthorized", { key: org.key });
    expect(events.body.data[0].data.object).toMatchObject({ id: installation.id, app: { id: app.id } });
    const authorized = await t.request("GET", "/v1/events?type=oauth_app.authorized", { key: org.key });
    expect(authorized.body.data.length).toBeGreaterThan(0);
  });

  it("refuses a wrong PKCE verifier", async () => {
    const { callback, state } = await consent({
      app,
      member: owner,
      orgId: org.id,
      scope: "finance:read",
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    });
    const params = oauth.validateAuthResponse(as, clientOf(app), callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      clientOf(app),
      authOf(app),
      params,
      REDIRECT,
      oauth.generateRandomCodeVerifier(),
      INSECURE,
    );
    await expect(oauth.processAuthorizationCodeResponse(as, clientOf(app), response)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("refuses a reused authorization code and revokes the tokens it issued", async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const { callback, state } = await consent({
      app,
      member: owner,
      orgId: org.id,
      scope: "finance:read",
      challenge: await oauth.calculatePKCECodeChallenge(verifier),
    });
    const params = oauth.validateAuthResponse(as, clientOf(app), callback, state);
    const exchange = () =>
      oauth.authorizationCodeGrantRequest(
        as,
        clientOf(app),
        authOf(app),
        params,
        REDIRECT,
        verifier,
        INSECURE,
      );
    const first = await oauth.processAuthorizationCodeResponse(as, clientOf(app), await exchange());
    expect((await api("GET", "/v1/invoices", first.access_token)).status).toBe(200);
    await expect(
      oauth.processAuthorizationCodeResponse(as, clientOf(app), await exchange()),
    ).rejects.toMatchObject({
      error: "invalid_grant",
    });
    await expectInvalidToken(first.access_token);
  });

  it("refuses a reused refresh token and revokes the grant", async () => {
    const tokens = await authorize();
    const renewed = await refresh(app, tokens.refresh_token!);
    await expect(refresh(app, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    await expectInvalidToken(renewed.access_token);
    await expect(refresh(app, renewed.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("never redirects to a redirect_uri that is not registered exactly", async () => {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: `${REDIRECT}/other`,
      response_type: "code",
      scope: "finance:read",
      state: "s",
    }).toString();
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("redirect_uri");
  });

  it("refuses scopes beyond the app's registration", async () => {
    const narrow = await registerApp(t, org, { scopes: ["finance:read"] });
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: narrow.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "finance:read finance:write",
      state: "s",
    }).toString();
    const response = await fetch(url, { redirect: "manual", headers: { cookie: owner.cookie } });
    const callback = new URL(response.headers.get("location")!);
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get("error")).toBe("invalid_scope");
  });

  it("grants no scope beyond the consenting member's role", async () => {
    const viewer = await signedInMember(t, org.id, "viewer");
    const tokens = await authorize({ member: viewer, scope: "finance:read finance:write" });
    expect(tokens.scope).toBe("finance:read");
    const me = await api("GET", "/v1/me", tokens.access_token);
    expect(me.body.credential).toMatchObject({
      user: { id: viewer.userId, role: "viewer" },
      scopes: ["finance:read"],
    });
    const write = await api("POST", "/v1/invoices", tokens.access_token, {
      client: "X",
      currency: "EUR",
      amount: 1,
      due_date: "2030-01-01",
    });
    expect(write.status).toBe(403);
  });

  it("deletes an app: every installation is disconnected, both organizations hear oauth_app.deauthorized", async () => {
    const publisher = await t.newOrg();
    const theirs = await registerApp(t, publisher, { scopes: ["finance:read"] });
    const tokens = await authorize({ app: theirs, scope: "finance:read" });
    expect((await api("GET", "/v1/invoices", tokens.access_token)).status).toBe(200);
    const installed = await t.request("GET", "/v1/oauth_installations", { key: org.key });
    const installation = installed.body.data.find((row: { app: { id: string } }) => row.app.id === theirs.id);
    expect(installation).toBeDefined();

    const deleted = await t.request("DELETE", `/v1/oauth_apps/${theirs.id}`, { key: publisher.key });
    expect(deleted.status).toBe(204);
    await expectInvalidToken(tokens.access_token);
    const after = await t.request("GET", "/v1/oauth_installations", { key: org.key });
    expect(after.body.data.some((row: { id: string }) => row.id === installation.id)).toBe(false);
    for (const who of [org, publisher]) {
      const events = await t.request("GET", "/v1/events?type=oauth_app.deauthorized", { key: who.key });
      expect(
        events.body.data.filter(
          (event: { data: { object: { id: string } } }) => event.data.object.id === installation.id,
        ),
      ).toHaveLength(1);
    }
    // Deleting it again: nothing is left.
    expect((await t.request("DELETE", `/v1/oauth_apps/${theirs.id}`, { key: publisher.key })).status).toBe(
      404,
    );
  });

  it("finds another organization's object as 404 with a token of this one", async () => {
    const other = await t.newOrg();
    const theirs = await t.request("POST", "/v1/invoices", {
      key: other.key,
      body: { client: "Other", currency: "EUR", amount: 5, due_date: "2030-01-01" },
    });
    const tokens = await authorize({ scope: "finance:read" });
    expect((await api("GET", `/v1/invoices/${theirs.body.id}`, tokens.access_token)).status).toBe(404);
  });

  it("answers 401 invalid_token for a revoked token (RFC 7009) and an expired one", async () => {
    const tokens = await authorize({ scope: "finance:read" });
    const revoked = await oauth.revocationRequest(
      as,
      clientOf(app),
      authOf(app),
      tokens.access_token,
      INSECURE,
    );
    await oauth.processRevocationResponse(revoked);
    await expectInvalidToken(tokens.access_token);

    const later = await authorize({ scope: "finance:read" });
    expect((await api("GET", "/v1/me", later.access_token)).status).toBe(200);
    // oidc-provider stamps expiry in real time; /v1 reads it on the app's clock, which started
    // with the suite: two hours on is past the one-hour lifetime whenever the token was issued.
    const TWO_HOURS_MS = 2 * 3600_000;
    t.clock.advance(TWO_HOURS_MS);
    try {
      await expectInvalidToken(later.access_token);
    } finally {
      t.clock.advance(-TWO_HOURS_MS);
    }
  });

  it.each<[string, Role]>([
    ["removed from the organization", "developer"],
    ["deleted", "admin"],
  ])("stops the tokens of a member %s", async (what, role) => {
    const member = await signedInMember(t, org.id, role);
    const tokens = await authorize({ member, scope: "finance:read" });
    expect((await api("GET", "/v1/me", tokens.access_token)).status).toBe(200);
    if (what === "deleted") await t.store.query("DELETE FROM users WHERE id = $1", [member.userId]);
    else await t.store.query("DELETE FROM memberships WHERE user_id = $1", [member.userId]);
    await expectInvalidToken(tokens.access_token);
    await expect(refresh(app, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("issues client credentials tokens acting as the app in its own organization", async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      clientOf(app),
      authOf(app),
      new URLSearchParams({ scope: "finance:read" }),
      INSECURE,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, clientOf(app), response);
    const me = await api("GET", "/v1/me", tokens.access_token);
    expect(me.body.organization.id).toBe(org.id);
    expect(me.body.credential).toMatchObject({ type: "oauth", user: null, scopes: ["finance:read"] });
    expect((await api("GET", "/v1/invoices", tokens.access_token)).status).toBe(200);
    expect((await api("GET", "/v1/contacts", tokens.access_token)).status).toBe(403);
  });

  it("lets a function see the app and the member in ctx.user, and passes a token that is not ours through", async () => {
    const source = `export default (req, ctx) => Response.json({ user: ctx.user, auth: req.headers.get("authorization") })`;
    for (const [name, auth] of [
      ["oauth-private", "key"],
      ["oauth-public", "public"],
    ] as const) {
      const deployed = await t.request("POST", "/v1/functions", {
        key: org.key,
        body: { name, auth, files: { "index.ts": source } },
      });
      expect(deployed.status, deployed.text).toBe(201);
    }
    const tokens = await authorize({ scope: "finance:read" });
    // functions:read is not among the token's scopes: a private function refuses it, as /v1 would.
    const refused = await api("GET", "/v1/functions/oauth-private/invoke", tokens.access_token);
    expect(refused.status).toBe(403);

    const publicId = (await t.request("GET", "/v1/functions/oauth-public", { key: org.key })).body
      .id as string;
    const seen = await api("GET", `/v1/functions/${publicId}/invoke`, tokens.access_token);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.auth).toBeNull();
    expect(seen.body.user).toMatchObject({
      type: "oauth",
      app: { id: app.id, client_id: app.client_id },
      user: { id: owner.userId, email: owner.email, role: "owner" },
      organization_id: org.id,
      scopes: ["finance:read"],
    });
    // Shaped like ours but unknown: the function's own business, passed through untouched.
    const foreign = "A".repeat(43);
    const passed = await api("GET", `/v1/functions/${publicId}/invoke`, foreign);
    expect(passed.status).toBe(200);
    expect(passed.body).toEqual({ user: null, auth: `Bearer ${foreign}` });
  });

  it("introspects tokens for the confidential client that holds them, and shows revoked ones inactive", async () => {
    const tokens = await authorize({ scope: "finance:read" });
    const introspect = async (token: string) =>
      oauth.processIntrospectionResponse(
        as,
        clientOf(app),
        await oauth.introspectionRequest(as, clientOf(app), authOf(app), token, INSECURE),
      );
    expect(await introspect(tokens.access_token)).toMatchObject({
      active: true,
      client_id: app.client_id,
      scope: "finance:read",
      sub: owner.userId,
    });
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, clientOf(app), authOf(app), tokens.refresh_token!, INSECURE),
    );
    expect(await introspect(tokens.access_token)).toMatchObject({ active: false });
  });

  it("requires PKCE of a public app and lets it refresh without a secret", async () => {
    const mobile = await registerApp(t, org, { scopes: ["growth:read"], kind: "public" });
    expect(mobile.client_secret).toBeNull();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: mobile.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "growth:read",
      state: "s",
    }).toString();
    const withoutPkce = await fetch(url, { redirect: "manual" });
    expect(new URL(withoutPkce.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");

    const tokens = await authorize({ app: mobile, scope: "growth:read" });
    const renewed = await refresh(mobile, tokens.refresh_token!);
    expect((await api("GET", "/v1/contacts", renewed.access_token)).status).toBe(200);
  });

  it("shows the app's logo on the consent page, allowed by the page's policy from its origin only", async () => {
    const logo = "https://cdn.integration.example/logo.png";
    const branded = await registerApp(t, org, { scopes: ["finance:read"], logo_url: logo });
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: branded.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "finance:read",
      state: "s",
    }).toString();
    const jar = new CookieJar(owner.cookie);
    const started = await step(jar, url.href);
    const page = await step(jar, new URL(started.headers.get("location")!, base).href);
    expect(await page.text()).toContain(`<img src="${logo}"`);
    const policy = page.headers.get("content-security-policy")!;
    expect(policy).toContain("img-src 'self' data: https://cdn.integration.example;");
    expect(policy).toContain("script-src 'self';");
    expect(page.headers.get("cache-control")).toBe("no-store");
  });

  it("sends a signed-out member to the dashboard's sign-in, which brings them back", async () => {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "finance:read",
      state: "s",
    }).toString();
    const jar = new CookieJar();
    const interaction = new URL((await step(jar, url.href)).headers.get("location")!, base);
    const page = await step(jar, interaction.href);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(
      `/sign-in?return_to=${encodeURIComponent(interaction.pathname)}`,
    );
    const signInPage = await step(jar, new URL(page.headers.get("location")!, base).href);
    const signIn = await step(jar, `${base}/sign-in`, {
      _csrf: csrfOf(await signInPage.text()),
      email: owner.email,
      password: owner.password,
      return_to: interaction.pathname,
    });
    expect(signIn.headers.get("location")).toBe(interaction.pathname);
    const elsewhere = new CookieJar();
    const offsite = await step(elsewhere, `${base}/sign-in`, {
      _csrf: csrfOf(await (await step(elsewhere, `${base}/sign-in`)).text()),
      email: owner.email,
      password: owner.password,
      return_to: "//evil.example/",
    });
    expect(offsite.headers.get("location")).toBe("/");
  });

  it("sends the app back with access_denied when the member denies", async () => {
    const { callback } = await consent({
      app,
      member: owner,
      orgId: org.id,
      scope: "finance:read",
      challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      deny: true,
    });
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get("error")).toBe("access_denied");
  });

  it("Settings → Integrations registers an app (secret once), lists what is installed, and Disconnect stops it", async () => {
    const jar = new CookieJar(owner.cookie);
    const registered = await step(jar, `${base}/settings/integrations/apps`, {
      _csrf: owner.csrf,
      name: "Books <Sync>",
      redirect_uris: REDIRECT,
      kind: "confidential",
      scopes: "finance:read",
    });
    expect(registered.status).toBe(201);
    const page = await registered.text();
    expect(page).toContain("Books &lt;Sync&gt;");
    const secret = /id="new-secret">(ocs_\w+)</.exec(page)![1]!;
    const clientId = /client ID is <code>(oc_\w+)<\/code>/.exec(page)![1]!;
    const listed = await t.request("GET", "/v1/oauth_apps", { key: org.key });
    const books = listed.body.data.find((entry: { client_id: string }) => entry.client_id === clientId);
    const booksApp: App = { ...books, client_secret: secret };

    const tokens = await authorize({ app: booksApp, scope: "finance:read" });
    expect((await api("GET", "/v1/invoices", tokens.access_token)).status).toBe(200);
    const settings = await (await step(jar, `${base}/settings/integrations`)).text();
    expect(settings).not.toContain(secret);
    const installed = await t.request("GET", "/v1/oauth_installations", { key: org.key });
    const mine = installed.body.data.find((row: { app: { id: string } }) => row.app.id === books.id);
    expect(settings).toContain(`/settings/integrations/${mine.id}/disconnect`);
    const disconnected = await step(jar, `${base}/settings/integrations/${mine.id}/disconnect`, {
      _csrf: owner.csrf,
    });
    expect(disconnected.status).toBe(303);
    await expectInvalidToken(tokens.access_token);
    const events = await t.request("GET", "/v1/events?type=oauth_app.deauthorized", { key: org.key });
    expect(
      events.body.data.some(
        (event: { data: { object: { id: string } } }) => event.data.object.id === mine.id,
      ),
    ).toBe(true);

    const viewer = await signedInMember(t, org.id, "viewer");
    const refused = await step(new CookieJar(viewer.cookie), `${base}/settings/integrations/apps`, {
      _csrf: viewer.csrf,
      name: "Nope",
      redirect_uris: REDIRECT,
      scopes: "finance:read",
    });
    expect(refused.status).toBe(403);
  });

  it("registers apps with a secret shown once, rotates it, and needs keys:write", async () => {
    const listed = await t.request("GET", "/v1/oauth_apps", { key: org.key });
    const row = listed.body.data.find((entry: { id: string }) => entry.id === app.id);
    expect(row.client_secret).toBeUndefined();
    expect(row.redacted_secret).toMatch(/^ocs_…\w{4}$/);

    const rotated = await t.request("POST", `/v1/oauth_apps/${app.id}/rotate_secret`, { key: org.key });
    expect(rotated.body.client_secret).toMatch(/^ocs_/);
    const old = await oauth.clientCredentialsGrantRequest(
      as,
      clientOf(app),
      authOf(app),
      new URLSearchParams(),
      INSECURE,
    );
    await expect(oauth.processClientCredentialsResponse(as, clientOf(app), old)).rejects.toMatchObject({
      status: 401,
      cause: [{ parameters: { error: "invalid_client" } }],
    });
    app = { ...app, client_secret: rotated.body.client_secret as string };

    const readOnly = await org.addKey({ kind: "read_only" });
    const refused = await t.request("POST", "/v1/oauth_apps", {
      key: readOnly,
      body: { name: "Nope", redirect_uris: [REDIRECT], scopes: ["finance:read"] },
    });
    expect(refused.status).toBe(403);
    const created = await t.request("GET", "/v1/events?type=oauth_app.created", { key: org.key });
    expect(
      created.body.data.some(
        (event: { data: { object: { id: string } } }) => event.data.object.id === app.id,
      ),
    ).toBe(true);
  });
});

async function registerApp(
  t: TestApp,
  org: TestOrg,
  options: { scopes: string[]; kind?: "confidential" | "public"; logo_url?: string },
): Promise<App> {
  const response = await t.request("POST", "/v1/oauth_apps", {
    key: org.key,
    body: { name: "Ledger Sync", redirect_uris: [REDIRECT], ...options },
  });
  expect(response.status).toBe(201);
  return response.body as App;
}
