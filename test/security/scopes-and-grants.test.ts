import { beforeAll, describe, expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import { OAUTH_SCOPES, ROLES, type Role } from "../../engines/index.ts";
import { useTestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * No credential wider than its creator (ARCHITECTURE.md, "Security model"): every kind of acting credential
 * against every kind of grant, through the real HTTP paths — `/v1/api_keys` and `/v1/oauth_apps` (a
 * key, an OAuth token, a session with its CSRF token), the admin API (the operator's token), and the
 * dashboard's forms (Settings → API Keys, Integrations, Members). Each table row is what one actor
 * gets for each grant: `allowed`, refused for lacking the route's scope (`lacks scope`), or refused by
 * the "may grant" rule (`exceeds`). test/engines/grants.test.ts is the same rule as a pure function.
 */
const RUN = randomBase62(8).toLowerCase();

type Outcome = "allowed" | "lacks scope" | "exceeds" | "forbidden";
/** What a request got: an outcome of the table, or what it should never get. */
type Seen = Outcome | `unexpected ${string}`;

const KEY_GRANTS = {
  full_access: { kind: "full_access" },
  read_only: { kind: "read_only" },
  "engine finance write": { kind: "engine", engines: ["finance"], access: "write" },
  "engine growth read": { kind: "engine", engines: ["growth"], access: "read" },
} as const;
type KeyGrant = keyof typeof KEY_GRANTS;

const APP_GRANTS = {
  "finance:write": ["finance:write"],
  "growth:read": ["growth:read"],
  "keys:write": ["keys:write"],
  "every scope": OAUTH_SCOPES,
} as const;
type AppGrant = keyof typeof APP_GRANTS;

/** One outcome for every grant, or the outcome of each where they differ. */
const all = <G extends string>(
  grants: readonly G[],
  outcome: Outcome,
  except: Partial<Record<G, Outcome>> = {},
) => Object.fromEntries(grants.map((grant) => [grant, except[grant] ?? outcome])) as Record<G, Outcome>;

const KEYS = Object.keys(KEY_GRANTS) as KeyGrant[];
const APPS = Object.keys(APP_GRANTS) as AppGrant[];

/** `/v1/api_keys` and `/v1/oauth_apps`, by actor. */
const V1: Record<string, { keys: Record<KeyGrant, Outcome>; apps: Record<AppGrant, Outcome> }> = {
  "a full_access key": { keys: all(KEYS, "allowed"), apps: all(APPS, "allowed") },
  "a read_only key": { keys: all(KEYS, "lacks scope"), apps: all(APPS, "lacks scope") },
  "an engine key (finance write)": { keys: all(KEYS, "lacks scope"), apps: all(APPS, "lacks scope") },
  "an engine key (growth read)": { keys: all(KEYS, "lacks scope"), apps: all(APPS, "lacks scope") },
  "an OAuth token with keys:write only": { keys: all(KEYS, "exceeds"), apps: all(APPS, "exceeds") },
  "an OAuth token with every scope": { keys: all(KEYS, "exceeds"), apps: all(APPS, "exceeds") },
  "an owner's session": { keys: all(KEYS, "allowed"), apps: all(APPS, "allowed") },
  "an admin's session": { keys: all(KEYS, "allowed"), apps: all(APPS, "allowed") },
  "a developer's session": {
    keys: all(KEYS, "allowed", { full_access: "exceeds", "engine finance write": "exceeds" }),
    apps: all(APPS, "allowed", { "finance:write": "exceeds", "every scope": "exceeds" }),
  },
  "a viewer's session": { keys: all(KEYS, "lacks scope"), apps: all(APPS, "lacks scope") },
};

/** The dashboard's forms, by the signed-in member's role. */
const DASHBOARD: Record<
  Role,
  { keys: Record<KeyGrant, Outcome>; apps: Record<AppGrant, Outcome>; roles: Record<Role, Outcome> }
> = {
  owner: { keys: all(KEYS, "allowed"), apps: all(APPS, "allowed"), roles: all(ROLES, "allowed") },
  admin: { keys: all(KEYS, "allowed"), apps: all(APPS, "allowed"), roles: all(ROLES, "forbidden") },
  developer: {
    keys: all(KEYS, "allowed", { full_access: "exceeds", "engine finance write": "exceeds" }),
    apps: all(APPS, "allowed", { "finance:write": "exceeds", "every scope": "exceeds" }),
    roles: all(ROLES, "forbidden"),
  },
  viewer: { keys: all(KEYS, "forbidden"), apps: all(APPS, "forbidden"), roles: all(ROLES, "forbidden") },
};

/** A refusal of the API, by its problem body: the route's scope, or the "may grant" rule. */
function apiOutcome(response: TestResponse): Seen {
  if (response.status === 201) return "allowed";
  if (response.status !== 403 || response.body?.code !== "insufficient_scope") {
    return `unexpected ${response.status}: ${response.text.slice(0, 200)}`;
  }
  const exceeds = (response.body.errors as Array<{ code: string }>).some((e) => e.code === "exceeds_grantor");
  return exceeds ? "exceeds" : "lacks scope";
}

/** A form's answer: a 201 page or a 303, the "may grant" refusal at its field, or the role's 403 page. */
function pageOutcome(response: TestResponse): Seen {
  if (response.status === 201 || response.status === 303) return "allowed";
  if (response.status !== 403) return `unexpected ${response.status}: ${response.text.slice(0, 200)}`;
  if (/no credential is wider than its creator|Cannot grant the/.test(response.text)) return "exceeds";
  return /cannot do this/.test(response.text)
    ? "forbidden"
    : `unexpected 403: ${response.text.slice(0, 200)}`;
}

describe.each(storeKinds())("scopes and grants on $name", (kind) => {
  const t = useTestApp(kind, { http: true });
  let org: TestOrg;
  let base: string;
  const members = {} as Record<Role, TestMember>;
  const bearers: Record<string, string> = {};
  let serial = 0;

  /** An OAuth app of the organization and a client credentials token with `scope` (all it registered when empty). */
  async function oauthToken(scopes: readonly string[], scope: string): Promise<string> {
    const registered = await t.request("POST", "/v1/oauth_apps", {
      key: org.key,
      body: { name: `Token ${scopes.length}`, redirect_uris: ["https://app.example/cb"], scopes },
    });
    expect(registered.status, registered.text).toBe(201);
    const { client_id: id, client_secret: secret } = registered.body as {
      client_id: string;
      client_secret: string;
    };
    const response = await t.fetch("/oauth/token", {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: "client_credentials", ...(scope ? { scope } : {}) }).toString(),
    });
    const body = (await response.json()) as { access_token: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.access_token;
  }

  beforeAll(async () => {
    const health = await t.fetch("/healthz");
    await health.arrayBuffer();
    base = new URL(health.url).origin;
    org = await t.newOrg();
    for (const role of ROLES) members[role] = await signedInMember(t, org.id, role);
    bearers["a full_access key"] = org.key;
    bearers["a read_only key"] = await org.addKey({ kind: "read_only" });
    bearers["an engine key (finance write)"] = await org.addKey({
      kind: "engine",
      engines: ["finance"],
      access: "write",
    });
    bearers["an engine key (growth read)"] = await org.addKey({ kind: "engine", engines: ["growth"] });
    bearers["an OAuth token with keys:write only"] = await oauthToken(
      ["keys:write", "finance:write"],
      "keys:write",
    );
    bearers["an OAuth token with every scope"] = await oauthToken(OAUTH_SCOPES, "");
  });

  /** A /v1 request as the actor: a bearer, or a session with its CSRF token from this origin. */
  function asActor(actor: string, method: string, path: string, body: unknown) {
    const role = /^an? (\w+)'s session$/.exec(actor)?.[1] as Role | undefined;
    if (!role) return t.request(method, path, { key: bearers[actor], body });
    const member = members[role];
    return t.request(method, path, {
      body,
      headers: {
        cookie: member.cookie,
        "x-csrf-token": member.csrf,
        origin: base,
        "sec-fetch-site": "same-origin",
      },
    });
  }

  /** A dashboard form posted as the member, with the session's CSRF token, from this origin. */
  async function postForm(
    member: TestMember,
    path: string,
    fields: Record<string, string | readonly string[]>,
  ): Promise<TestResponse> {
    const body = new URLSearchParams([["_csrf", member.csrf]]);
    for (const [name, value] of Object.entries(fields))
      for (const item of [value].flat()) body.append(name, item);
    // As a browser's form: its 303 is the answer (not followed, unlike fetch's default).
    const response = await t.fetch(path, {
      method: "POST",
      redirect: "manual",
      body: body.toString(),
      headers: {
        cookie: member.cookie,
        "content-type": "application/x-www-form-urlencoded",
        origin: base,
        "sec-fetch-site": "same-origin",
      },
    });
    return {
      status: response.status,
      headers: response.headers,
      body: undefined,
      text: await response.text(),
    };
  }

  it("gives the OAuth tokens exactly the scopes the table names them by", async () => {
    const me = await t.request("GET", "/v1/me", { key: bearers["an OAuth token with keys:write only"] });
    expect(me.body.credential).toMatchObject({ type: "oauth", scopes: ["keys:write"] });
    const every = await t.request("GET", "/v1/me", { key: bearers["an OAuth token with every scope"] });
    expect(every.body.credential.scopes).toEqual(OAUTH_SCOPES);
  });

  describe.each(Object.entries(V1))("as %s on /v1", (actor, expected) => {
    it("creates only the API keys it may grant", async () => {
      const outcome: Record<string, Seen> = {};
      for (const grant of KEYS) {
        const body = { name: `${actor} ${grant}`, ...KEY_GRANTS[grant] };
        outcome[grant] = apiOutcome(await asActor(actor, "POST", "/v1/api_keys", body));
      }
      expect(outcome).toEqual(expected.keys);
    });

    it("registers only the OAuth apps it may grant", async () => {
      const outcome: Record<string, Seen> = {};
      for (const grant of APPS) {
        const body = {
          name: `${actor} ${grant}`,
          redirect_uris: ["https://app.example/cb"],
          scopes: APP_GRANTS[grant],
        };
        outcome[grant] = apiOutcome(await asActor(actor, "POST", "/v1/oauth_apps", body));
      }
      expect(outcome).toEqual(expected.apps);
    });
  });

  describe("as the operator on /admin/v1", () => {
    const admin = (path: string, body: unknown) =>
      t.request("POST", `/admin/v1${path}`, { body, headers: { authorization: "Bearer tsa_test_token" } });

    it("creates every kind of key and invites to every role: the operator may grant anything", async () => {
      const keys = Object.fromEntries(
        await Promise.all(
          KEYS.map(async (grant) => [grant, (await admin(`/orgs/${org.id}/keys`, KEY_GRANTS[grant])).status]),
        ),
      );
      expect(keys).toEqual(Object.fromEntries(KEYS.map((grant) => [grant, 201])));
      const invites: Record<string, number> = {};
      for (const role of ROLES) {
        const email = `operator-invites-${role}-${RUN}@example.com`;
        invites[role] = (await admin(`/orgs/${org.id}/invitations`, { email, role })).status;
      }
      expect(invites).toEqual(Object.fromEntries(ROLES.map((role) => [role, 201])));
    });
  });

  describe.each(ROLES)("as a signed-in %s in the dashboard", (role) => {
    const expected = DASHBOARD[role];

    it("creates only the API keys its role may grant (Settings → API Keys)", async () => {
      const outcome: Record<string, Seen> = {};
      for (const grant of KEYS) {
        const fields = { name: `${role} ${grant}`, ...KEY_GRANTS[grant] };
        outcome[grant] = pageOutcome(await postForm(members[role], "/settings/api-keys", fields));
      }
      expect(outcome).toEqual(expected.keys);
    });

    it("registers only the OAuth apps its role may grant (Settings → Integrations)", async () => {
      const outcome: Record<string, Seen> = {};
      for (const grant of APPS) {
        const fields = {
          name: `${role} ${grant}`,
          redirect_uris: "https://app.example/cb",
          scopes: APP_GRANTS[grant],
        };
        outcome[grant] = pageOutcome(await postForm(members[role], "/settings/integrations/apps", fields));
      }
      expect(outcome).toEqual(expected.apps);
    });

    it("invites to a role, and changes a member's role, only within its own (Settings → Members)", async () => {
      const invites: Record<string, Seen> = {};
      const changes: Record<string, Seen> = {};
      for (const granted of ROLES) {
        serial += 1;
        const email = `invitee-${serial}-${RUN}@example.com`;
        invites[granted] = pageOutcome(
          await postForm(members[role], "/settings/members/invite", { email, role: granted }),
        );
        const target = await signedInMember(t, org.id, "developer");
        changes[granted] = pageOutcome(
          await postForm(members[role], `/settings/members/${target.userId}/role`, { role: granted }),
        );
      }
      expect(invites).toEqual(expected.roles);
      expect(changes).toEqual(expected.roles);
    });
  });

  describe("the attacks of the penetration test", () => {
    const keyIds = async () =>
      (
        (await t.request("GET", "/v1/api_keys?per_page=100", { key: org.key })).body.data as Array<{
          id: string;
        }>
      )
        .map((key) => key.id)
        .sort();
    const appIds = async () =>
      (
        (await t.request("GET", "/v1/oauth_apps?per_page=100", { key: org.key })).body.data as Array<{
          id: string;
        }>
      )
        .map((app) => app.id)
        .sort();

    it("refuses a developer's session a full_access key, on /v1 and in the dashboard, and makes none", async () => {
      const before = await keyIds();
      const viaApi = await asActor("a developer's session", "POST", "/v1/api_keys", { kind: "full_access" });
      expect(viaApi.status).toBe(403);
      expect(viaApi.body).toMatchObject({ code: "insufficient_scope", title: "Insufficient scope" });
      expect(viaApi.body.detail).toContain("your role (developer) does not hold");
      expect(viaApi.body.errors.map((error: { message: string }) => error.message.split(" ")[0])).toEqual([
        "finance:write",
        "growth:write",
        "talent:write",
        "sync:write",
      ]);
      const viaPage = await postForm(members.developer, "/settings/api-keys", { kind: "full_access" });
      expect(viaPage.status).toBe(403);
      expect(viaPage.text).toContain("your role (developer) does not hold");
      expect(viaPage.text).not.toMatch(/sk_live_[0-9A-Za-z]{40}/);
      expect(await keyIds()).toEqual(before);
      // The form offers a developer no full-access key at all.
      const form = await t.request("GET", "/settings/api-keys", {
        headers: { cookie: members.developer.cookie },
      });
      expect(form.text).not.toContain('value="full_access"');
      expect(form.text).toContain('value="read_only"');
    });

    it("refuses an OAuth token with only keys:write a full_access key and an app with finance:write, and makes neither", async () => {
      const token = bearers["an OAuth token with keys:write only"]!;
      const [keysBefore, appsBefore] = [await keyIds(), await appIds()];
      const key = await t.request("POST", "/v1/api_keys", { key: token, body: { kind: "full_access" } });
      expect(key.status).toBe(403);
      expect(key.body.code).toBe("insufficient_scope");
      expect(key.body.detail).toMatch(/OAuth access token cannot grant/);
      const app = await t.request("POST", "/v1/oauth_apps", {
        key: token,
        body: { name: "Escalator", redirect_uris: ["https://evil.example/cb"], scopes: ["finance:write"] },
      });
      expect(app.status).toBe(403);
      expect(app.body.errors).toEqual([
        { param: "scopes", code: "exceeds_grantor", message: expect.stringContaining("finance:write") },
      ]);
      expect(await keyIds()).toEqual(keysBefore);
      expect(await appIds()).toEqual(appsBefore);
    });

    it("refuses a developer the secret, or a change, of an app wider than its role", async () => {
      const wide = await t.request("POST", "/v1/oauth_apps", {
        key: org.key,
        body: { name: "Wide", redirect_uris: ["https://app.example/cb"], scopes: ["finance:write"] },
      });
      expect(wide.status).toBe(201);
      const id = wide.body.id as string;
      const rotate = await asActor(
        "a developer's session",
        "POST",
        `/v1/oauth_apps/${id}/rotate_secret`,
        undefined,
      );
      expect(rotate.status).toBe(403);
      expect(rotate.body.errors[0].code).toBe("exceeds_grantor");
      const redirect = await asActor("a developer's session", "PATCH", `/v1/oauth_apps/${id}`, {
        redirect_uris: ["https://evil.example/cb"],
      });
      expect(redirect.status).toBe(403);
      const token = bearers["an OAuth token with every scope"]!;
      expect((await t.request("POST", `/v1/oauth_apps/${id}/rotate_secret`, { key: token })).status).toBe(
        403,
      );
      expect(
        (await asActor("an owner's session", "POST", `/v1/oauth_apps/${id}/rotate_secret`, undefined)).status,
      ).toBe(200);
      const page = await postForm(members.developer, `/settings/integrations/apps/${id}/rotate`, {});
      expect(page.status).toBe(403);
      expect(page.text).not.toMatch(/ocs_\w{40}/);
    });
  });
});
