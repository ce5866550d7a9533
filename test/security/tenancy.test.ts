import { beforeAll, describe, expect, it } from "vitest";
import { authorizeInstallation } from "../../engines/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { prepareRefs, RESOURCE_CASES } from "../helpers/resource-cases.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * One organization can neither see nor touch another's objects, through any
 * route. The routes come from the app itself, so a route added later is covered
 * (or fails here until this suite knows an object it can aim at).
 */

interface Route {
  method: string;
  path: string;
}

/** Valid bodies for action routes that need one, so a refusal can only be the 404 under test. */
const ACTION_BODIES: Record<string, unknown> = {
  "/v1/webhook_endpoints/:id/recover": { since: "2025-03-01T00:00:00Z" },
  "/v1/functions/:id/secrets": { TOKEN: "intruder's value" },
  "/v1/functions/:id/rollback": { version: 1 },
  "/v1/functions/:id/trigger": { event_type: "contact.created" },
};

/** Fields that change by merely using a credential, not by another org's request. */
const VOLATILE = new Set(["last_used_at"]);

/** The resource a route with an id belongs to: `/v1/intelligence/snapshots/:id` → `intelligence/snapshots`. */
function resourceOf(path: string): string {
  return path.slice("/v1/".length, path.indexOf("/:"));
}

function stable(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !VOLATILE.has(key)));
}

describe.each(storeKinds())("organization isolation on $name", (kind) => {
  let owner: TestOrg;
  let intruder: TestOrg;
  let routes: Route[];
  /** URL segment under /v1 → the owner's object there. */
  const targets = new Map<string, { id: string; snapshot: Record<string, unknown> }>();
  const ownerIds: string[] = [];
  const bodies = new Map(RESOURCE_CASES.map((rc) => [rc.resource, rc.patch.body]));

  const read = async (segment: string, id: string) => {
    // Installations have no GET by id: the owner finds its own in the list.
    if (segment === "oauth_installations") {
      const listed = await t.request("GET", "/v1/oauth_installations", { key: owner.key });
      const found = (listed.body.data as Array<Record<string, unknown>>).find((item) => item.id === id);
      expect(found, `owner lists ${segment}/${id}`).toBeDefined();
      return stable(found!);
    }
    const response = await t.request("GET", `/v1/${segment}/${id}`, { key: owner.key });
    expect(response.status, `owner reads ${segment}/${id}`).toBe(200);
    return stable(response.body);
  };

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    owner = await t.newOrg();
    intruder = await t.newOrg();
    for (const [n, rc] of RESOURCE_CASES.entries()) {
      // The owner's object is one its owner could delete, so a leaked DELETE would show.
      const mine = await t.request("POST", `/v1/${rc.resource}`, {
        key: owner.key,
        body: rc.create(n, "Owned", await prepareRefs(rc, t, owner.key)),
      });
      expect(mine.status, mine.text).toBe(201);
      // The intruder has objects of its own, so its lists are not trivially empty.
      await t.request("POST", `/v1/${rc.resource}`, {
        key: intruder.key,
        body: rc.create(n, "Intruding", await prepareRefs(rc, t, intruder.key)),
      });
      targets.set(rc.resource, { id: mine.body.id, snapshot: stable(mine.body) });
    }
    const key = await t.request("GET", `/v1/api_keys/${owner.keyId}`, { key: owner.key });
    targets.set("api_keys", { id: owner.keyId, snapshot: stable(key.body) });
    for (const org of [owner, intruder]) {
      const endpoint = await t.request("POST", "/v1/webhook_endpoints", {
        key: org.key,
        body: { url: "https://hooks.example.com/tessera" },
      });
      expect(endpoint.status, endpoint.text).toBe(201);
      const delivery = await t.request("POST", `/v1/webhook_endpoints/${endpoint.body.id}/test`, {
        key: org.key,
      });
      expect(delivery.status, delivery.text).toBe(202);
      if (org === owner) {
        targets.set("webhook_endpoints", {
          id: endpoint.body.id,
          snapshot: await read("webhook_endpoints", endpoint.body.id),
        });
        targets.set("webhook_deliveries", {
          id: delivery.body.id,
          snapshot: await read("webhook_deliveries", delivery.body.id),
        });
      }
    }
    for (const org of [owner, intruder]) {
      const deployed = await t.request("POST", "/v1/functions", {
        key: org.key,
        body: { name: "same-name", files: { "index.ts": "export default () => new Response('hi')" } },
      });
      expect(deployed.status, deployed.text).toBe(201);
      if (org === owner)
        targets.set("functions", {
          id: deployed.body.id,
          snapshot: await read("functions", deployed.body.id),
        });
      const snapshot = await t.request("POST", "/v1/intelligence/snapshots", { key: org.key });
      expect(snapshot.status, snapshot.text).toBe(201);
      if (org === owner)
        targets.set("intelligence/snapshots", { id: snapshot.body.id, snapshot: snapshot.body });
    }
    for (const org of [owner, intruder]) {
      const asked = await t.request("POST", "/v1/sync/chat", {
        key: org.key,
        body: { message: "Create a contact Sync Isolation, sync@example.com" },
      });
      expect(asked.status, asked.text).toBe(200);
      expect(asked.body.actions, asked.text).toHaveLength(1);
      if (org === owner) {
        const action = asked.body.actions[0].id as string;
        targets.set("sync/actions", { id: action, snapshot: await read("sync/actions", action) });
        targets.set("sync/interactions", {
          id: asked.body.id,
          snapshot: await read("sync/interactions", asked.body.id),
        });
        const conversation = asked.body.conversation_id as string;
        targets.set("sync/conversations", {
          id: conversation,
          snapshot: await read("sync/conversations", conversation),
        });
      }
    }
    for (const org of [owner, intruder]) {
      const registered = await t.request("POST", "/v1/oauth_apps", {
        key: org.key,
        body: { name: "Same App", redirect_uris: ["https://app.example.com/cb"], scopes: ["finance:read"] },
      });
      expect(registered.status, registered.text).toBe(201);
      // A consent, as the consent page records it (test/dashboard/oauth.test.ts drives the real flow).
      const member = await signedInMember(t, org.id, "owner");
      const { installation } = await authorizeInstallation(t.store, t.clock, {
        orgId: org.id,
        appId: registered.body.id,
        userId: member.userId,
        grantId: `grant-${org.id}`,
        scopes: ["finance:read"],
        grantor: { type: "member", role: "owner", userId: member.userId },
      });
      if (org === owner) {
        targets.set("oauth_apps", {
          id: registered.body.id,
          snapshot: await read("oauth_apps", registered.body.id),
        });
        targets.set("oauth_installations", {
          id: installation.id,
          snapshot: await read("oauth_installations", installation.id),
        });
      }
    }
    const events = await t.request("GET", "/v1/events?per_page=1", { key: owner.key });
    targets.set("events", { id: events.body.data[0].id, snapshot: events.body.data[0] });
    ownerIds.push(owner.id, ...[...targets.values()].map((target) => target.id));
    routes = t.app.routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/v1/"));
  });

  it("aims at an object of every /v1 route that takes an id", () => {
    const segments = routes.filter((r) => r.path.includes("/:id")).map((r) => resourceOf(r.path));
    expect(segments.length).toBeGreaterThan(0);
    for (const segment of segments) expect(targets.has(segment), `no target for /v1/${segment}`).toBe(true);
  });

  it("answers 404 to every route given the other organization's id, and changes nothing", async () => {
    const aimed = routes.filter((r) => r.path.includes("/:id"));
    for (const route of aimed) {
      const segment = resourceOf(route.path);
      const target = targets.get(segment)!;
      const path = route.path.replace(":id", target.id);
      const response = await t.request(route.method, path, {
        key: intruder.key,
        body:
          route.method === "GET"
            ? undefined
            : (ACTION_BODIES[route.path] ??
              (route.method === "PATCH" ? (bodies.get(segment) ?? {}) : undefined)),
      });
      expect(response.status, `${route.method} ${route.path}: ${response.text}`).toBe(404);
      expect(response.body.code).toBe("not_found");
    }
    for (const [segment, target] of targets) {
      expect(await read(segment, target.id), `${segment} after the intrusions`).toEqual(target.snapshot);
    }
  });

  it("never shows the other organization's objects in any list or read without an id", async () => {
    const reads = routes.filter((r) => r.method === "GET" && !r.path.includes("/:"));
    expect(reads.map((r) => r.path)).toEqual(
      expect.arrayContaining(RESOURCE_CASES.map((rc) => `/v1/${rc.resource}`)),
    );
    for (const route of reads) {
      if (route.path === "/v1/events/stream") {
        // Endless: it starts at the newest event, so it has nothing of the past to leak
        // (test/api/events-stream.test.ts holds it to the caller's organization).
        const stream = await t.fetch(route.path, { headers: { authorization: `Bearer ${intruder.key}` } });
        expect(stream.status).toBe(200);
        await stream.body?.cancel();
        continue;
      }
      const response = await t.request("GET", route.path, { key: intruder.key });
      expect(response.status, `${route.path}: ${response.text}`).toBeLessThan(300);
      for (const id of ownerIds) expect(response.text, `GET ${route.path} leaks ${id}`).not.toContain(id);
      if (Array.isArray(response.body?.data)) {
        expect(response.body.data.length, `GET ${route.path} shows the intruder's own`).toBeGreaterThan(0);
      }
    }
  });

  it("finds none of the other organization's objects by search or by filter", async () => {
    for (const rc of RESOURCE_CASES) {
      const searched = await t.request("GET", `/v1/${rc.resource}?q=Owned`, { key: intruder.key });
      expect(searched.body.meta.total, rc.resource).toBe(0);
    }
    const contactId = targets.get("contacts")!.id;
    const byContact = await t.request("GET", `/v1/invoices?contact_id=${contactId}`, { key: intruder.key });
    expect(byContact.body.data).toEqual([]);
  });

  it("refuses to reference the other organization's objects (422 invalid_reference)", async () => {
    const invoice = {
      client: "Intruder",
      currency: "EUR",
      due_date: "2025-06-30",
      contact_id: targets.get("contacts")!.id,
      line_items: [{ product_id: targets.get("products")!.id, quantity: 1, unit_price: 1 }],
    };
    const response = await t.request("POST", "/v1/invoices", { key: intruder.key, body: invoice });
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ param: "contact_id", code: "invalid_reference" });
    const own = await t.request("POST", "/v1/invoices", {
      key: intruder.key,
      body: { client: "Intruder", currency: "EUR", due_date: "2025-06-30", amount: 1 },
    });
    const patched = await t.request("PATCH", `/v1/invoices/${own.body.id}`, {
      key: intruder.key,
      body: { contact_id: targets.get("contacts")!.id },
    });
    expect(patched.status).toBe(422);
    expect(patched.body.errors[0]).toMatchObject({ param: "contact_id", code: "invalid_reference" });
  });

  it("keeps engine state apart: another organization never sees, changes or deletes a key of the same name", async () => {
    const state = (
      org: TestOrg,
      method: string,
      key: string,
      options: { body?: unknown; headers?: Record<string, string> } = {},
    ) =>
      t.request(method, `/v1/engines/finance/state/${encodeURIComponent(key)}`, { key: org.key, ...options });
    // The state routes' methods, each exercised below (a method added later must be added here).
    const stateRoutes = new Set(routes.filter((r) => r.path.startsWith("/v1/engines/")).map((r) => r.method));
    expect([...stateRoutes].sort()).toEqual(["DELETE", "GET", "PUT"]);
    const owned = await state(owner, "PUT", "shared/key", { body: { value: { owner: owner.id } } });
    expect(owned.status).toBe(201);

    expect((await state(intruder, "GET", "shared/key")).status).toBe(404);
    expect((await state(intruder, "DELETE", "shared/key")).status).toBe(404);
    const guarded = await state(intruder, "PUT", "shared/key", {
      body: { value: 1 },
      headers: { "if-match": '"1"' },
    });
    expect(guarded.status).toBe(412);
    const list = await t.request("GET", "/v1/engines/finance/state?prefix=shared", { key: intruder.key });
    expect(list.body.data).toEqual([]);
    expect(list.text).not.toContain(owner.id);
    // Its own key of that name is its own, from version 1.
    const own = await state(intruder, "PUT", "shared/key", {
      body: { value: "intruder" },
      headers: { "if-none-match": "*" },
    });
    expect(own.status).toBe(201);
    expect((await state(intruder, "DELETE", "shared/key")).status).toBe(204);

    const after = await state(owner, "GET", "shared/key");
    expect(after.body).toEqual(owned.body);
  });

  it("leaves the owner's key working and unrevoked", async () => {
    const me = await t.request("GET", "/v1/me", { key: owner.key });
    expect(me.status).toBe(200);
    expect(me.body.organization.id).toBe(owner.id);
    const key = await t.request("GET", `/v1/api_keys/${owner.keyId}`, { key: owner.key });
    expect(key.body.revoked_at).toBeNull();
  });
});
