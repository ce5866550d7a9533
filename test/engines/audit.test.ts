import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig, randomBase62, silentLogger } from "../../core/index.ts";
import { AUDIT_EVENT_TYPES, createSession, type Actor } from "../../engines/index.ts";
import { useTestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import { preSession, signedInMember, type TestMember } from "../helpers/members.ts";
import { startReceiver, testBox, workerStoreKinds } from "../helpers/webhooks.ts";
import { createWebhookWorker } from "../../webhooks/index.ts";

/**
 * The audit trail: every management action, done through the path a person or program uses (the
 * API with a key, an OAuth token or a dashboard session; the dashboard's forms; the operator's
 * `/admin/v1`, which the CLI calls; the OAuth consent page), records its event with who did it, in
 * the same shape webhooks receive. No event holds a secret it was made with or shown once.
 */
const RUN = randomBase62(8).toLowerCase();
const REDIRECT = "https://integration.example/callback";
const FUNCTION_SOURCE = (text: string) =>
  `export default { fetch() { return new Response(${JSON.stringify(text)}); } };`;
/** An event as JSON, read freely (the helper's response bodies are). */
type EventJson = TestResponse["body"];
/** A page's CSRF token, as its forms send it. */
const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)![1]!;

// A webhook worker runs in one test, and claims every due delivery of its database: on PostgreSQL the
// suite has a database of its own (workerStoreKinds).
describe.each(workerStoreKinds())("the audit trail on $name", (kind) => {
  const PRIVATE_TARGETS = { TESSERA_ALLOW_PRIVATE_TARGETS: "1", TESSERA_ALLOW_HTTP_TARGETS: "1" };
  const t = useTestApp(kind, { http: true, env: PRIVATE_TARGETS });
  let base: string;
  let org: TestOrg;
  let owner: TestMember;
  let keyActor: Actor;
  let ownerActor: Actor;
  const operator: Actor = { type: "cli", id: "operator" };
  /** Every secret an action made or was given: none may appear in an event (the last test). */
  const secrets: string[] = [];
  /** The audit kinds seen with their actor: every one must be (the last test). */
  const seen = new Set<string>();

  beforeAll(async () => {
    const health = await t.fetch("/healthz");
    await health.arrayBuffer();
    base = new URL(health.url).origin;
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
    keyActor = { type: "api_key", id: org.keyId };
    ownerActor = { type: "user", id: owner.userId };
  });

  /** The organization's newest event of `type`, as `GET /v1/events` (and so a webhook) shows it. */
  async function latest(type: string, orgId = org.id, key = org.key): Promise<EventJson> {
    const listed = await t.request("GET", `/v1/events?type=${type}&per_page=1`, { key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data, `no ${type} event in ${orgId}`).toHaveLength(1);
    return listed.body.data[0];
  }

  /** The newest `type` event names `actor` and is about `objectId`; returns it. */
  async function expectAction(type: string, actor: Actor, objectId?: string): Promise<EventJson> {
    const event = await latest(type);
    expect(event.actor, `${type}'s actor`).toEqual(actor);
    if (objectId !== undefined) expect(event.data.object.id).toBe(objectId);
    seen.add(type);
    return event;
  }

  /** A dashboard form posted by `member`, as its browser would (a redirect is its answer, not followed). */
  async function submit(member: TestMember, path: string, fields: Record<string, string> = {}) {
    return formPost(path, new URLSearchParams({ _csrf: member.csrf, ...fields }), member.cookie);
  }

  async function formPost(path: string, form: URLSearchParams, cookie: string) {
    const response = await t.fetch(path, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: form.toString(),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** A /v1 request on `member`'s session, with its CSRF token, as the dashboard's own scripts send it. */
  const asMember = (member: TestMember, method: string, path: string, body?: unknown) =>
    t.request(method, path, { body, headers: { cookie: member.cookie, "x-csrf-token": member.csrf } });

  /** An operator command through `/admin/v1`, as the CLI sends it while the server runs. */
  const admin = (method: string, path: string, body?: unknown) =>
    t.request(method, `/admin/v1${path}`, { body, headers: { authorization: "Bearer tsa_test_token" } });

  const ok = (response: TestResponse, status = 200) => {
    expect(response.status, response.text.slice(0, 500)).toBe(status);
    return response.body;
  };

  it("records API keys created and revoked by an API key, a dashboard user and the operator", async () => {
    const created = ok(
      await t.request("POST", "/v1/api_keys", { key: org.key, body: { kind: "read_only" } }),
      201,
    );
    secrets.push(created.secret);
    await expectAction("api_key.created", keyActor, created.id);
    ok(await t.request("POST", `/v1/api_keys/${created.id}/revoke`, { key: org.key }));
    await expectAction("api_key.revoked", keyActor, created.id);

    const page = await submit(owner, "/settings/api-keys", {
      kind: "read_only",
      name: `made by ${owner.email}`,
    });
    expect(page.status).toBe(201);
    secrets.push(/id="new-secret">([^<]+)</.exec(page.text)![1]!);
    const made = await expectAction("api_key.created", ownerActor);
    expect((await submit(owner, `/settings/api-keys/${made.data.object.id}/revoke`)).status).toBe(303);
    await expectAction("api_key.revoked", ownerActor, made.data.object.id);

    const viaSession = ok(await asMember(owner, "POST", "/v1/api_keys", { kind: "read_only" }), 201);
    secrets.push(viaSession.secret);
    await expectAction("api_key.created", ownerActor, viaSession.id);

    const byOperator = ok(await admin("POST", `/orgs/${org.id}/keys`, { kind: "read_only" }), 201);
    secrets.push(byOperator.secret);
    await expectAction("api_key.created", operator, byOperator.id);
    ok(await admin("POST", `/orgs/${org.id}/keys/${byOperator.id}/revoke`));
    await expectAction("api_key.revoked", operator, byOperator.id);
  });

  it("records members invited, joined, re-roled and removed, and sessions signed out", async () => {
    const email = `joiner-${RUN}@example.com`;
    const invited = await submit(owner, "/settings/members/invite", { email, role: "viewer" });
    expect(invited.status, invited.text.slice(0, 300)).toBe(201);
    const invitation = await expectAction("member.invited", ownerActor);
    expect(invitation.data.object.email).toBe(email);

    const link = new URL(/id="invite-link">([^<]+)</.exec(invited.text)![1]!);
    const pre = await preSession(t);
    const joined = await formPost(
      link.pathname,
      new URLSearchParams({ _csrf: pre.csrf, name: "Jo Joiner", password: "a long enough passphrase" }),
      pre.cookie,
    );
    expect(joined.status, joined.text.slice(0, 300)).toBe(303);
    const join = await latest("member.joined");
    const joinerId = join.data.object.user as string;
    // Who joins acts for themselves: the actor is the new member.
    await expectAction("member.joined", { type: "user", id: joinerId });

    ok(
      await admin("POST", `/orgs/${org.id}/invitations`, {
        email: `cli-${RUN}@example.com`,
        role: "developer",
      }),
      201,
    );
    await expectAction("member.invited", operator);

    expect((await submit(owner, `/settings/members/${joinerId}/role`, { role: "developer" })).status).toBe(
      303,
    );
    const changed = await expectAction("member.role_changed", ownerActor);
    expect(changed.data.previous_attributes).toEqual({ role: "viewer" });
    expect((await submit(owner, `/settings/members/${joinerId}/remove`)).status).toBe(303);
    expect((await expectAction("member.removed", ownerActor)).data.object.user).toBe(joinerId);

    // Settings → Sessions: one session signed out, then every one of another member's.
    const other = await createSession(t.store, t.clock, {
      userId: owner.userId,
      orgId: org.id,
      userAgent: "Laptop",
    });
    expect((await submit(owner, `/settings/sessions/${other.sessionId}/end`)).status).toBe(303);
    const ended = await expectAction("session.revoked", ownerActor, other.sessionId);
    expect(ended.data.object).toMatchObject({ object: "session", user: owner.userId, user_agent: "Laptop" });
    secrets.push(other.token, other.csrf, owner.token);
    const leaver = await signedInMember(t, org.id, "viewer");
    expect((await submit(leaver, "/settings/sessions/end-all")).status).toBe(303);
    await expectAction("session.revoked", { type: "user", id: leaver.userId });
  });

  it("records OAuth apps registered, changed, rotated, authorized, disconnected and deleted", async () => {
    const body = {
      name: "Ledger Sync",
      redirect_uris: [REDIRECT],
      scopes: ["finance:read", "webhooks:write"],
    };
    const app = ok(await t.request("POST", "/v1/oauth_apps", { key: org.key, body }), 201);
    secrets.push(app.client_secret);
    await expectAction("oauth_app.created", keyActor, app.id);
    ok(
      await t.request("PATCH", `/v1/oauth_apps/${app.id}`, { key: org.key, body: { name: "Ledger Sync 2" } }),
    );
    const updated = await expectAction("oauth_app.updated", keyActor, app.id);
    expect(updated.data.previous_attributes).toEqual({ name: "Ledger Sync" });
    const rotated = ok(await t.request("POST", `/v1/oauth_apps/${app.id}/rotate_secret`, { key: org.key }));
    secrets.push(rotated.client_secret);
    const rotation = await expectAction("oauth_app.secret_rotated", keyActor, app.id);
    expect(rotation.data.object.redacted_secret).toBe(`ocs_…${rotated.client_secret.slice(-4)}`);

    const page = await submit(owner, "/settings/integrations/apps", {
      name: "Dashboard App",
      redirect_uris: REDIRECT,
      scopes: "finance:read",
    });
    expect(page.status, page.text.slice(0, 300)).toBe(201);
    const registered = await expectAction("oauth_app.created", ownerActor);
    const dashboardApp = registered.data.object.id as string;
    const renewed = await submit(owner, `/settings/integrations/apps/${dashboardApp}/rotate`);
    expect(renewed.status).toBe(200);
    await expectAction("oauth_app.secret_rotated", ownerActor, dashboardApp);

    // The consent page: the owner installs the first app in the organization.
    await consent(app.client_id, owner, org.id, "finance:read");
    const authorized = await expectAction("oauth_app.authorized", ownerActor);
    const installation = authorized.data.object.id as string;
    expect((await submit(owner, `/settings/integrations/${installation}/disconnect`)).status).toBe(303);
    await expectAction("oauth_app.deauthorized", ownerActor, installation);

    await t.request("DELETE", `/v1/oauth_apps/${dashboardApp}`, { key: org.key });
    await expectAction("oauth_app.deleted", keyActor, dashboardApp);
  });

  it("names the OAuth app when its token acts, and no actor in another organization's copy", async () => {
    const body = { name: "Hooker", redirect_uris: [REDIRECT], scopes: ["webhooks:read", "webhooks:write"] };
    const app = ok(await t.request("POST", "/v1/oauth_apps", { key: org.key, body }), 201);
    secrets.push(app.client_secret);
    const token = await clientCredentials(app.client_id, app.client_secret);
    secrets.push(token);
    const endpoint = ok(
      await t.request("POST", "/v1/webhook_endpoints", {
        key: token,
        body: { url: "https://example.com/by-app" },
      }),
      201,
    );
    secrets.push(endpoint.secret);
    await expectAction("webhook_endpoint.created", { type: "oauth_app", id: app.id }, endpoint.id);
    // Its target is no receiver of this suite: nothing is to be delivered to it.
    ok(await t.request("DELETE", `/v1/webhook_endpoints/${endpoint.id}`, { key: token }), 204);

    // A member of another organization installs this organization's app: each hears of it; only the
    // installing organization, where the member acted, learns who.
    const other = await t.newOrg();
    const theirs = await signedInMember(t, other.id, "owner");
    await consent(app.client_id, theirs, other.id, "webhooks:read");
    const there = await latest("oauth_app.authorized", other.id, other.key);
    expect(there.actor).toEqual({ type: "user", id: theirs.userId });
    const here = await latest("oauth_app.authorized");
    expect(here.data.object.organization_id).toBe(other.id);
    expect(here).not.toHaveProperty("actor");
    const audited = ok(
      await t.request("GET", "/v1/audit_events?type=oauth_app.authorized", { key: org.key }),
    );
    expect(audited.data.map((event: { id: string }) => event.id)).not.toContain(here.id);
  });

  it("records functions deployed, their secrets changed, rolled back and deleted", async () => {
    const name = `audited-${RUN}`;
    const deploy = (text: string) =>
      t.request("POST", "/v1/functions", {
        key: org.key,
        body: { name, files: { "index.ts": FUNCTION_SOURCE(text) } },
      });
    const first = ok(await deploy("v1"), 201);
    await expectAction("function.deployed", keyActor, first.id);
    ok(
      await asMember(owner, "POST", "/v1/functions", { name, files: { "index.ts": FUNCTION_SOURCE("v2") } }),
      201,
    );
    await expectAction("function.deployed", ownerActor, first.id);

    const value = `secret-value-${randomBytes(12).toString("hex")}`;
    secrets.push(value);
    ok(
      await t.request("PUT", `/v1/functions/${name}/secrets`, {
        key: org.key,
        body: { API_TOKEN: value, OLD: "x-old-value" },
      }),
    );
    const set = await expectAction("function.secrets_updated", keyActor, first.id);
    expect(set.data.object).toEqual({
      id: first.id,
      object: "function_secrets",
      name,
      set: ["API_TOKEN", "OLD"],
      removed: [],
      secrets: ["API_TOKEN", "OLD"],
    });
    expect(
      ok(await t.request("DELETE", `/v1/functions/${name}/secrets/OLD`, { key: org.key }), 204),
    ).toBeUndefined();
    const removed = await expectAction("function.secrets_updated", keyActor, first.id);
    expect(removed.data.object).toMatchObject({ set: [], removed: ["OLD"], secrets: ["API_TOKEN"] });
    const dashboardValue = `dashboard-secret-${randomBytes(12).toString("hex")}`;
    secrets.push(dashboardValue);
    const saved = await submit(owner, `/functions/${name}/secrets`, {
      name: "FROM_PAGE",
      value: dashboardValue,
    });
    expect(saved.status, saved.text.slice(0, 300)).toBe(200);
    const fromPage = await expectAction("function.secrets_updated", ownerActor, first.id);
    expect(fromPage.data.object.set).toEqual(["FROM_PAGE"]);

    ok(await t.request("POST", `/v1/functions/${name}/rollback`, { key: org.key, body: {} }));
    const rolled = await expectAction("function.rolled_back", keyActor, first.id);
    expect(rolled.data.previous_attributes).toEqual({ version: 2 });
    // What serves changed too: function.deployed follows, the action's consequence, with no actor.
    const serving = await latest("function.deployed");
    expect(serving.data.object.version).toBe(1);
    expect(serving).not.toHaveProperty("actor");
    expect((await submit(owner, `/functions/${name}/versions/2/rollback`)).status).toBe(303);
    await expectAction("function.rolled_back", ownerActor, first.id);

    expect((await t.request("DELETE", `/v1/functions/${name}`, { key: org.key })).status).toBe(204);
    await expectAction("function.deleted", keyActor, first.id);
  });

  it("records webhook endpoints created, changed, rotated and deleted", async () => {
    const created = ok(
      await t.request("POST", "/v1/webhook_endpoints", {
        key: org.key,
        body: { url: "https://example.com/hooks" },
      }),
      201,
    );
    secrets.push(created.secret);
    await expectAction("webhook_endpoint.created", keyActor, created.id);
    ok(
      await t.request("PATCH", `/v1/webhook_endpoints/${created.id}`, {
        key: org.key,
        body: { description: "Billing" },
      }),
    );
    const changed = await expectAction("webhook_endpoint.updated", keyActor, created.id);
    expect(changed.data.previous_attributes).toEqual({ description: null });
    const rotated = ok(
      await t.request("POST", `/v1/webhook_endpoints/${created.id}/rotate_secret`, { key: org.key }),
    );
    secrets.push(rotated.secret);
    const rotation = await expectAction("webhook_endpoint.updated", keyActor, created.id);
    expect(rotation.data.previous_attributes).toEqual({ previous_secret_expires_at: null });

    const made = await submit(owner, "/webhooks/new", { url: "https://example.com/from-page", scope: "all" });
    expect(made.status, made.text.slice(0, 300)).toBe(303);
    const id = /\/webhooks\/(we_\w+)/.exec(made.headers.get("location") ?? "")![1]!;
    await expectAction("webhook_endpoint.created", ownerActor, id);
    const shown = await submit(owner, `/webhooks/${id}/rotate`);
    expect(shown.status).toBe(200);
    secrets.push(/whsec_[A-Za-z0-9+/=]+/.exec(shown.text)![0]);
    await expectAction("webhook_endpoint.updated", ownerActor, id);
    expect((await submit(owner, `/webhooks/${id}/delete`)).status).toBe(303);
    await expectAction("webhook_endpoint.deleted", ownerActor, id);
    expect((await t.request("DELETE", `/v1/webhook_endpoints/${created.id}`, { key: org.key })).status).toBe(
      204,
    );
    await expectAction("webhook_endpoint.deleted", keyActor, created.id);
  });

  it("delivers an audit event to a subscribed endpoint with its actor, as the event reads", async () => {
    const receiver = await startReceiver();
    const worker = createWebhookWorker({
      store: t.store,
      clock: t.clock,
      log: silentLogger,
      config: loadConfig({ TESSERA_DATA_DIR: "/nonexistent", ...PRIVATE_TARGETS }),
      box: testBox,
    });
    try {
      const endpoint = ok(
        await t.request("POST", "/v1/webhook_endpoints", {
          key: org.key,
          body: { url: receiver.url, event_types: ["member.*"] },
        }),
        201,
      );
      secrets.push(endpoint.secret);
      const invited = await admin("POST", `/orgs/${org.id}/invitations`, {
        email: `delivered-${RUN}@example.com`,
        role: "viewer",
      });
      ok(invited, 201);
      expect(await worker.runOnce()).toBe(1);
      const delivered = JSON.parse(receiver.received[0]!.body);
      expect(delivered).toEqual(await latest("member.invited"));
      expect(delivered.actor).toEqual(operator);
      ok(await t.request("DELETE", `/v1/webhook_endpoints/${endpoint.id}`, { key: org.key }), 204);
    } finally {
      await worker.dispose();
      await receiver.close();
    }
  });

  it("writes no actor on data events", async () => {
    const contact = ok(await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } }), 201);
    const event = await latest("contact.created");
    expect(event.data.object.id).toBe(contact.id);
    expect(event).not.toHaveProperty("actor");
  });

  describe("after every action", () => {
    it("has recorded every audit kind with its actor, each in the catalog", async () => {
      expect([...seen].sort()).toEqual([...AUDIT_EVENT_TYPES].sort());
      const catalog = ok(await t.request("GET", "/v1/event_types", { key: org.key }));
      const types = catalog.data.map((entry: { type: string }) => entry.type);
      for (const type of AUDIT_EVENT_TYPES) expect(types).toContain(type);
    });

    it("holds no secret in any event: keys, client secrets, tokens, signing secrets, function secrets", async () => {
      expect(secrets.length).toBeGreaterThan(10);
      const events: unknown[] = [];
      for (let page = 1; ; page += 1) {
        const listed = ok(await t.request("GET", `/v1/events?per_page=100&page=${page}`, { key: org.key }));
        events.push(...listed.data);
        if (listed.data.length < 100) break;
      }
      const audit = ok(await t.request("GET", "/v1/audit_events?per_page=100", { key: org.key }));
      const text = JSON.stringify([events, audit.data]);
      for (const secret of secrets)
        expect(text.includes(secret), `a secret (${secret.slice(0, 6)}…) in an event`).toBe(false);
      expect(text).not.toMatch(/sk_live_[0-9A-Za-z]{32}|ocs_[0-9A-Za-z]{40}|whsec_[A-Za-z0-9+/]{20}/);
    });
  });

  /** A client credentials token for a confidential app, from the token endpoint. */
  async function clientCredentials(clientId: string, clientSecret: string): Promise<string> {
    const response = await t.fetch("/oauth/token", {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "webhooks:write" }).toString(),
    });
    const body = (await response.json()) as { access_token: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.access_token;
  }

  /** The consent page's part of the code flow, as test/dashboard/oauth.test.ts drives it: up to Approve. */
  async function consent(clientId: string, member: TestMember, orgId: string, scope: string): Promise<void> {
    const metadata = await t.fetch("/.well-known/oauth-authorization-server/oauth");
    const { authorization_endpoint: endpoint } = (await metadata.json()) as {
      authorization_endpoint: string;
    };
    const verifier = randomBytes(32).toString("base64url");
    const url = new URL(endpoint);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope,
      state: randomBase62(12),
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }).toString();
    const cookies = new Map<string, string>([
      [member.cookie.split("=")[0]!, member.cookie.slice(member.cookie.indexOf("=") + 1)],
    ]);
    const step = async (href: string, form?: Record<string, string>) => {
      const response = await fetch(href, {
        method: form ? "POST" : "GET",
        redirect: "manual",
        headers: {
          cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
          ...(form ? { "content-type": "application/x-www-form-urlencoded", origin: base } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const line of response.headers.getSetCookie()) {
        const pair = line.split(";")[0]!;
        cookies.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
      }
      return response;
    };
    const asked = await step(url.href);
    expect(asked.status).toBe(303);
    const interaction = new URL(asked.headers.get("location")!, base);
    const page = await step(`${interaction.href}?org=${orgId}`);
    expect(page.status).toBe(200);
    const approved = await step(`${interaction.href}/approve`, {
      _csrf: csrfOf(await page.text()),
      org: orgId,
    });
    expect(approved.status).toBe(303);
  }
});
