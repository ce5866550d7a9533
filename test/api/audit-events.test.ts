import { beforeAll, describe, expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import { AUDIT_EVENT_TYPES } from "../../engines/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * `GET /v1/audit_events`: the organization's management actions with their actor, newest first, paged
 * like `/v1/events`, filtered by kind (a list or a family), by actor (its type, its id) and by time;
 * only for a credential that may see keys and events.
 */
const RUN = randomBase62(8).toLowerCase();

describe.each(storeKinds())("the audit log API on $name", (kind) => {
  const t = useTestApp(kind, { http: true });
  let org: TestOrg;
  let owner: TestMember;
  let viewer: TestMember;
  const at = {
    start: "2025-03-15T10:00:00Z",
    endpoint: "2025-03-15T10:01:00Z",
    invited: "2025-03-15T10:02:00Z",
    renamed: "2025-03-15T10:03:00Z",
  };
  let endpointId: string;

  beforeAll(async () => {
    t.clock.set(at.start);
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
    viewer = await signedInMember(t, org.id, "viewer");
    const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Not audited" } });
    expect(contact.status).toBe(201);
    t.clock.set(at.endpoint);
    const endpoint = await t.request("POST", "/v1/webhook_endpoints", {
      key: org.key,
      body: { url: "https://example.com/audited" },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    endpointId = endpoint.body.id;
    t.clock.set(at.invited);
    const invited = await t.request("POST", `/admin/v1/orgs/${org.id}/invitations`, {
      body: { email: `listed-${RUN}@example.com`, role: "viewer" },
      headers: { authorization: "Bearer tsa_test_token" },
    });
    expect(invited.status, invited.text).toBe(201);
    t.clock.set(at.renamed);
    const renamed = await t.request("PATCH", `/v1/webhook_endpoints/${endpointId}`, {
      body: { description: "Renamed by the owner" },
      headers: { cookie: owner.cookie, "x-csrf-token": owner.csrf },
    });
    expect(renamed.status, renamed.text).toBe(200);
  });

  const list = async (query = "", key = org.key) => {
    const response = await t.request("GET", `/v1/audit_events${query}`, { key });
    expect(response.status, response.text).toBe(200);
    return response.body as {
      data: Array<{
        id: string;
        object: string;
        type: string;
        actor: { type: string; id: string };
        data: { object: Record<string, unknown> };
      }>;
      meta: { total: number; page: number; per_page: number };
    };
  };
  const types = (page: Awaited<ReturnType<typeof list>>) => page.data.map((event) => event.type);

  it("lists the management actions newest first, each with its actor, and no data event", async () => {
    // (The organization's first key, made by the operator with it, is stamped by the store's clock.)
    const page = await list("?type=webhook_endpoint.created,webhook_endpoint.updated,member.invited");
    expect(types(page).slice(0, 3)).toEqual([
      "webhook_endpoint.updated",
      "member.invited",
      "webhook_endpoint.created",
    ]);
    expect(page.data[0]!.actor).toEqual({ type: "user", id: owner.userId });
    expect(page.data[1]!.actor).toEqual({ type: "cli", id: "operator" });
    expect(page.data[2]!.actor).toEqual({ type: "api_key", id: org.keyId });
    expect(page.data[0]).toMatchObject({ object: "event", timestamp: at.renamed });
    const everything = await list();
    // Beside them: the first key, and the two members joining (made by the test's helper).
    expect(everything.meta.total).toBe(6);
    expect(types(everything)).not.toContain("contact.created");
    for (const type of types(everything)) expect(AUDIT_EVENT_TYPES).toContain(type);
    // The same event, as /v1/events (and so a webhook) has it.
    const one = await t.request("GET", `/v1/events/${page.data[0]!.id}`, { key: org.key });
    expect(one.body).toEqual(page.data[0]);
  });

  it("filters by kind: one, a comma list, or a family; an unknown or a data kind is a 400", async () => {
    expect(types(await list("?type=member.invited"))).toEqual(["member.invited"]);
    expect(types(await list("?type=member.invited,webhook_endpoint.created"))).toEqual([
      "member.invited",
      "webhook_endpoint.created",
    ]);
    expect(types(await list("?type=webhook_endpoint.*"))).toEqual([
      "webhook_endpoint.updated",
      "webhook_endpoint.created",
    ]);
    for (const type of ["nope.created", "contact.created", "webhook_endpoint.test", "contact.*"]) {
      const refused = await t.request("GET", `/v1/audit_events?type=${type}`, { key: org.key });
      expect(refused.status, type).toBe(400);
      expect(refused.body.errors[0].param).toBe("type");
    }
  });

  it("filters by actor type and actor id; an unknown actor type is a 400 naming it", async () => {
    // The operator made the organization's first key, and the invitation.
    expect(types(await list("?actor_type=cli")).sort()).toEqual(["api_key.created", "member.invited"]);
    const people = await list("?actor_type=user,cli");
    expect(types(people).sort()).toEqual([
      "api_key.created",
      "member.invited",
      "member.joined",
      "member.joined",
      "webhook_endpoint.updated",
    ]);
    const byKey = await list(`?actor_type=api_key&actor_id=${org.keyId}`);
    expect(byKey.data.map((event) => event.data.object.id)).toContain(endpointId);
    expect(byKey.data.every((event) => event.actor.id === org.keyId)).toBe(true);
    expect(types(await list(`?actor_id=${owner.userId}`))).toEqual([
      "webhook_endpoint.updated",
      "member.joined",
    ]);
    expect((await list("?actor_id=key_nobody")).data).toEqual([]);
    const refused = await t.request("GET", "/v1/audit_events?actor_type=robot", { key: org.key });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].param).toBe("actor_type");
  });

  it("filters by time and pages like every list", async () => {
    const window = await list(`?created_after=${at.endpoint}&created_before=${at.renamed}`);
    expect(types(window)).toEqual(["member.invited"]);
    const second = await list("?per_page=1&page=2&type=webhook_endpoint.*");
    expect(second.meta).toEqual({ total: 2, page: 2, per_page: 1 });
    expect(types(second)).toEqual(["webhook_endpoint.created"]);
    const bad = await t.request("GET", "/v1/audit_events?created_after=yesterday", { key: org.key });
    expect(bad.status).toBe(400);
  });

  it("needs keys:read and webhooks:read: a read-only key and a viewer may, an engine key may not", async () => {
    const readOnly = await org.addKey({ kind: "read_only" });
    expect((await list("", readOnly)).meta.total).toBeGreaterThan(0);
    const asViewer = await t.request("GET", "/v1/audit_events", { headers: { cookie: viewer.cookie } });
    expect(asViewer.status).toBe(200);
    const engine = await org.addKey({ kind: "engine", engines: ["finance"], access: "write" });
    const refused = await t.request("GET", "/v1/audit_events", { key: engine });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    // Each scope alone is not enough: events without keys, or keys without events.
    for (const scope of ["keys:read", "webhooks:read"]) {
      const token = await clientCredentials(scope);
      expect((await t.request("GET", "/v1/audit_events", { key: token })).status, scope).toBe(403);
    }
    const both = await clientCredentials("keys:read webhooks:read");
    expect((await t.request("GET", "/v1/audit_events", { key: both })).status).toBe(200);
  });

  it("sees only its own organization's actions", async () => {
    const other = await t.newOrg();
    const theirs = await t.request("GET", "/v1/audit_events", { key: other.key });
    expect(theirs.body.data.map((event: { id: string }) => event.id)).not.toContain(
      (await list()).data[0]!.id,
    );
  });

  /** A client credentials token of a new app of the organization, with exactly `scope`. */
  async function clientCredentials(scope: string): Promise<string> {
    const app = await t.request("POST", "/v1/oauth_apps", {
      key: org.key,
      body: { name: scope, redirect_uris: ["https://app.example/cb"], scopes: scope.split(" ") },
    });
    expect(app.status, app.text).toBe(201);
    const response = await t.fetch("/oauth/token", {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${app.body.client_id}:${app.body.client_secret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: "client_credentials", scope }).toString(),
    });
    const body = (await response.json()) as { access_token: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.access_token;
  }
});
