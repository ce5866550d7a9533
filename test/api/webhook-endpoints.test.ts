import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { createSecretBox } from "../../core/index.ts";
import { signedHeaders, signingSecrets, type WebhookEndpointRow } from "../../webhooks/index.ts";
import { useTestApp, withTestApp, TEST_SECRET, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

const URL_OK = "https://hooks.example.com/tessera";
const DAY_MS = 24 * 3600 * 1000;

describe.each(storeKinds())("webhook endpoints on $name", (kind) => {
  let org: TestOrg;
  const box = createSecretBox(TEST_SECRET);

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const create = (body: Record<string, unknown> = {}, key = org.key) =>
    t.request("POST", "/v1/webhook_endpoints", { key, body: { url: URL_OK, ...body } });
  const rowOf = async (id: string) =>
    (await t.store.query<WebhookEndpointRow>("SELECT * FROM webhook_endpoints WHERE id = $1", [id]))[0]!;
  const countEndpoints = async (orgId = org.id) =>
    (
      await t.store.query<{ n: number }>("SELECT count(*) AS n FROM webhook_endpoints WHERE org_id = $1", [
        orgId,
      ])
    )[0]!.n;
  const eventsOf = async (orgId: string, type: string) =>
    t.store.query<{
      id: string;
      type: string;
      data: { object: Record<string, unknown>; previous_attributes?: object };
    }>("SELECT id, type, data FROM events WHERE org_id = $1 AND type = $2 ORDER BY seq", [orgId, type]);
  const deliveriesOf = async (endpointId: string) =>
    t.store.query<{ id: string; event_id: string; event_type: string; status: string }>(
      "SELECT id, event_id, event_type, status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id",
      [endpointId],
    );

  it("creates an endpoint with 201 and Location, showing its whsec_ secret once", async () => {
    const created = await create({
      description: "billing",
      event_types: ["invoice.paid", "contact.*"],
      retry_policy: { schedule_s: [5, 300, 1800] },
      rate_limit_per_s: 50,
      headers: { "X-Team": "billing" },
      metadata: { owner: "ops" },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`/v1/webhook_endpoints/${created.body.id}`);
    expect(created.body).toMatchObject({
      object: "webhook_endpoint",
      url: URL_OK,
      description: "billing",
      event_types: ["invoice.paid", "contact.*"],
      enabled: true,
      disabled_reason: null,
      signing_scheme: "v1",
      retry_policy: { schedule_s: [5, 300, 1800] },
      rate_limit_per_s: 50,
      headers: { "X-Team": "billing" },
      metadata: { owner: "ops" },
      failing_since: null,
      previous_secret_expires_at: null,
      created_at: "2025-03-15T10:00:00Z",
    });
    expect(created.body.id).toMatch(/^we_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const fetched = await t.request("GET", `/v1/webhook_endpoints/${created.body.id}`, { key: org.key });
    expect(fetched.status).toBe(200);
    expect(fetched.body).not.toHaveProperty("secret");
    expect(fetched.text).not.toContain(created.body.secret.slice(6));
    const { secret: _secret, ...withoutSecret } = created.body;
    expect(fetched.body).toEqual(withoutSecret);

    const listed = await t.request("GET", "/v1/webhook_endpoints", { key: org.key });
    expect(listed.text).not.toContain(created.body.secret.slice(6));

    const shown = await t.request("GET", `/v1/webhook_endpoints/${created.body.id}/secret`, { key: org.key });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ secret: created.body.secret });
    expect(shown.headers.get("cache-control")).toBe("no-store");
  });

  it("keeps the secret sealed in the table, never in plaintext", async () => {
    const created = await create();
    const row = await rowOf(created.body.id);
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(created.body.secret);
    expect(row.secret).not.toContain(created.body.secret.slice(6));
    expect(box.open(row.secret)).toBe(created.body.secret);
  });

  it("replays an idempotent creation with its secret, which rests sealed in the idempotency table", async () => {
    const request = () =>
      t.request("POST", "/v1/webhook_endpoints", {
        key: org.key,
        body: { url: URL_OK },
        headers: { "Idempotency-Key": "create-endpoint-once" },
      });
    const first = await request();
    const again = await request();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const stored = await t.store.query<{ response_body: string }>(
      "SELECT response_body FROM idempotency_keys WHERE org_id = $1 AND key = $2",
      [org.id, "create-endpoint-once"],
    );
    expect(stored[0]!.response_body).not.toContain(first.body.secret.slice(6));
  });

  it("creates a v1a endpoint whose shown secret is the whpk_ public key", async () => {
    const created = await create({ signing_scheme: "v1a" });
    expect(created.status).toBe(201);
    expect(created.body.signing_scheme).toBe("v1a");
    expect(created.body.secret).toMatch(/^whpk_/);
    const row = await rowOf(created.body.id);
    expect(box.open(row.secret)).toMatch(/^whsk_/);
    const shown = await t.request("GET", `/v1/webhook_endpoints/${created.body.id}/secret`, { key: org.key });
    expect(shown.body.secret).toBe(created.body.secret);
  });

  it("lists endpoints newest first in the paging envelope, filtered by enabled", async () => {
    const other = await t.newOrg();
    const first = await create({}, other.key);
    t.clock.advance(1000);
    const second = await create({ enabled: false }, other.key);
    t.clock.advance(1000);
    const third = await create({}, other.key);
    const page = await t.request("GET", "/v1/webhook_endpoints?per_page=2", { key: other.key });
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ total: 3, page: 1, per_page: 2 });
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([third.body.id, second.body.id]);
    for (const endpoint of page.body.data) expect(endpoint).not.toHaveProperty("secret");
    const enabled = await t.request("GET", "/v1/webhook_endpoints?enabled=true&sort=created_at", {
      key: other.key,
    });
    expect(enabled.body.data.map((e: { id: string }) => e.id)).toEqual([first.body.id, third.body.id]);
    const bad = await t.request("GET", "/v1/webhook_endpoints?enabled=maybe", { key: other.key });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].param).toBe("enabled");
  });

  it("updates with PATCH, re-validating the URL and recording previous_attributes", async () => {
    const created = await create({ description: "before" });
    t.clock.advance(60_000);
    const patched = await t.request("PATCH", `/v1/webhook_endpoints/${created.body.id}`, {
      key: org.key,
      body: { description: "after", url: "https://other.example.com/hook", metadata: { a: "1" } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      description: "after",
      url: "https://other.example.com/hook",
      metadata: { a: "1" },
    });
    expect(patched.body).not.toHaveProperty("secret");
    const refused = await t.request("PATCH", `/v1/webhook_endpoints/${created.body.id}`, {
      key: org.key,
      body: { url: "http://other.example.com/hook" },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].param).toBe("url");
    expect((await rowOf(created.body.id)).url).toBe("https://other.example.com/hook");

    const updated = (await eventsOf(org.id, "webhook_endpoint.updated")).at(-1)!;
    expect(updated.data.object.id).toBe(created.body.id);
    expect(updated.data.previous_attributes).toMatchObject({ description: "before", url: URL_OK });
  });

  it("disables by hand with reason manual, and enabling clears disabled_reason and failing_since", async () => {
    const created = await create();
    const id = created.body.id;
    const off = await t.request("PATCH", `/v1/webhook_endpoints/${id}`, {
      key: org.key,
      body: { enabled: false },
    });
    expect(off.body).toMatchObject({ enabled: false, disabled_reason: "manual" });
    // What the delivery side does to a failing endpoint.
    await t.store.query(
      "UPDATE webhook_endpoints SET disabled_reason = 'failing', failing_since = $2::timestamptz WHERE id = $1",
      [id, "2025-03-10T00:00:00Z"],
    );
    const stillOff = await t.request("PATCH", `/v1/webhook_endpoints/${id}`, {
      key: org.key,
      body: { description: "x" },
    });
    expect(stillOff.body).toMatchObject({
      disabled_reason: "failing",
      failing_since: "2025-03-10T00:00:00Z",
    });
    const on = await t.request("PATCH", `/v1/webhook_endpoints/${id}`, {
      key: org.key,
      body: { enabled: true },
    });
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it("deletes with 204, then answers 404, recording webhook_endpoint.deleted", async () => {
    const created = await create();
    const deleted = await t.request("DELETE", `/v1/webhook_endpoints/${created.body.id}`, { key: org.key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const gone = await t.request("GET", `/v1/webhook_endpoints/${created.body.id}`, { key: org.key });
    expect(gone.status).toBe(404);
    const events = await eventsOf(org.id, "webhook_endpoint.deleted");
    expect(events.some((e) => e.data.object.id === created.body.id)).toBe(true);
  });

  it("records created events without the secret in the payload", async () => {
    const created = await create();
    const event = (await eventsOf(org.id, "webhook_endpoint.created")).find(
      (e) => e.data.object.id === created.body.id,
    )!;
    expect(event).toBeDefined();
    expect(event.data.object).not.toHaveProperty("secret");
    expect(JSON.stringify(event.data)).not.toContain(created.body.secret.slice(6));
  });

  it("rotates the secret: both sign for 24 hours, then only the new one", async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    const created = await create();
    const id = created.body.id;
    const oldSecret = created.body.secret as string;
    const rotated = await t.request("POST", `/v1/webhook_endpoints/${id}/rotate_secret`, { key: org.key });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.previous_secret_expires_at).toBe("2025-03-16T10:00:00Z");
    const shown = await t.request("GET", `/v1/webhook_endpoints/${id}/secret`, { key: org.key });
    expect(shown.body.secret).toBe(newSecret);
    expect(
      JSON.stringify((await t.request("GET", `/v1/webhook_endpoints/${id}`, { key: org.key })).body),
    ).not.toContain(newSecret.slice(6));

    const row = await rowOf(id);
    expect(row.previous_secret).not.toContain(oldSecret.slice(6));
    const during = signingSecrets(row, new Date(t.clock.nowMs() + DAY_MS - 1000), box);
    expect(during).toEqual([newSecret, oldSecret]);
    const body = JSON.stringify({ id: "evt_1", type: "contact.created" });
    const headers = signedHeaders({ secrets: during, id: "evt_1", now: new Date(), body });
    expect(() => new Webhook(oldSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, { ...headers })).not.toThrow();

    t.clock.advance(DAY_MS);
    const after = signingSecrets(await rowOf(id), t.clock.now(), box);
    expect(after).toEqual([newSecret]);
    const later = signedHeaders({ secrets: after, id: "evt_2", now: new Date(), body });
    expect(() => new Webhook(oldSecret).verify(body, { ...later })).toThrow();
    expect(() => new Webhook(newSecret).verify(body, { ...later })).not.toThrow();
    t.clock.set("2025-03-15T10:00:00Z");
  });

  it("sends a test event as one delivery to that endpoint only", async () => {
    const other = await t.newOrg();
    const target = await create({ event_types: ["contact.created"] }, other.key);
    const bystander = await create({}, other.key);
    const before = (await deliveriesOf(bystander.body.id)).length;
    const sent = await t.request("POST", `/v1/webhook_endpoints/${target.body.id}/test`, { key: other.key });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({
      object: "webhook_delivery",
      endpoint_id: target.body.id,
      event_type: "webhook_endpoint.test",
      status: "pending",
    });
    expect(sent.body.id).toMatch(/^whd_/);
    const deliveries = await deliveriesOf(target.body.id);
    expect(deliveries).toEqual([
      {
        id: sent.body.id,
        event_id: sent.body.event_id,
        event_type: "webhook_endpoint.test",
        status: "pending",
      },
    ]);
    expect((await deliveriesOf(bystander.body.id)).length).toBe(before);
    const [event] = await eventsOf(other.id, "webhook_endpoint.test");
    expect(event!.id).toBe(sent.body.event_id);
    expect(event!.data.object.id).toBe(target.body.id);

    await t.request("PATCH", `/v1/webhook_endpoints/${target.body.id}`, {
      key: other.key,
      body: { enabled: false },
    });
    const disabled = await t.request("POST", `/v1/webhook_endpoints/${target.body.id}/test`, {
      key: other.key,
    });
    expect(disabled.status).toBe(409);
  });

  it("fans a contact's event out to matching enabled endpoints only", async () => {
    const other = await t.newOrg();
    const all = await create({}, other.key);
    const exact = await create({ event_types: ["contact.created"] }, other.key);
    const family = await create({ event_types: ["contact.*"] }, other.key);
    const invoicesOnly = await create({ event_types: ["invoice.*"] }, other.key);
    const disabled = await create({ event_types: ["contact.created"], enabled: false }, other.key);
    const contact = await t.request("POST", "/v1/contacts", { key: other.key, body: { name: "Ada" } });
    expect(contact.status).toBe(201);
    const [created] = await eventsOf(other.id, "contact.created");

    const receivedContact = async (endpointId: string) =>
      (await deliveriesOf(endpointId)).filter((d) => d.event_id === created!.id).length;
    expect(await receivedContact(all.body.id)).toBe(1);
    expect(await receivedContact(exact.body.id)).toBe(1);
    expect(await receivedContact(family.body.id)).toBe(1);
    expect(await receivedContact(invoicesOnly.body.id)).toBe(0);
    expect(await receivedContact(disabled.body.id)).toBe(0);
  });

  describe("refuses bad input with 422 naming the param, storing nothing", () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["an http URL", { url: "http://hooks.example.com/x" }, "url"],
      ["a relative URL", { url: "/hooks" }, "url"],
      ["credentials in the URL", { url: "https://user:pw@hooks.example.com/" }, "url"],
      ["a loopback IP", { url: "https://127.0.0.1/hook" }, "url"],
      ["localhost", { url: "https://localhost:8443/hook" }, "url"],
      ["a private IP", { url: "https://10.1.2.3/hook" }, "url"],
      ["a 172.16/12 IP", { url: "https://172.20.0.5/hook" }, "url"],
      ["a 192.168/16 IP", { url: "https://192.168.0.10/hook" }, "url"],
      ["the metadata address", { url: "https://169.254.169.254/latest" }, "url"],
      ["a CGNAT IP", { url: "https://100.64.1.1/" }, "url"],
      ["IPv6 loopback", { url: "https://[::1]/" }, "url"],
      ["IPv6 unique local", { url: "https://[fd00::1]/" }, "url"],
      ["IPv6 link-local", { url: "https://[fe80::1]/" }, "url"],
      ["IPv4-mapped loopback", { url: "https://[::ffff:127.0.0.1]/" }, "url"],
      ["0.0.0.0", { url: "https://0.0.0.0/" }, "url"],
      ["loopback in decimal", { url: "https://2130706433/" }, "url"],
      ["a missing URL", { url: undefined }, "url"],
      ["an unknown event type", { event_types: ["contact.created", "contact.exploded"] }, "event_types[1]"],
      ["an unknown family", { event_types: ["nothing.*"] }, "event_types[0]"],
      ["an unknown scheme", { signing_scheme: "v2" }, "signing_scheme"],
      [
        "a schedule and exponential at once",
        { retry_policy: { schedule_s: [5], exponential: { base_s: 1, cap_s: 2 }, max_attempts: 3 } },
        "retry_policy",
      ],
      ["an empty retry policy", { retry_policy: {} }, "retry_policy"],
      ["a negative delay", { retry_policy: { schedule_s: [5, -1] } }, "retry_policy.schedule_s[1]"],
      ["a fractional delay", { retry_policy: { schedule_s: [1.5] } }, "retry_policy.schedule_s[0]"],
      [
        "exponential without max_attempts",
        { retry_policy: { exponential: { base_s: 5, cap_s: 60 } } },
        "retry_policy.max_attempts",
      ],
      [
        "a cap below the base",
        { retry_policy: { exponential: { base_s: 60, cap_s: 5 }, max_attempts: 3 } },
        "retry_policy.exponential.cap_s",
      ],
      ["an unknown retry key", { retry_policy: { schedule_s: [5], jitter: 1 } }, "retry_policy.jitter"],
      [
        "max_attempts with a schedule",
        { retry_policy: { schedule_s: [5], max_attempts: 4 } },
        "retry_policy.max_attempts",
      ],
      ["a zero rate limit", { rate_limit_per_s: 0 }, "rate_limit_per_s"],
      ["a hop-by-hop header", { headers: { Connection: "close" } }, "headers.Connection"],
      ["transfer-encoding", { headers: { "Transfer-Encoding": "chunked" } }, "headers.Transfer-Encoding"],
      ["a webhook-* header", { headers: { "webhook-signature": "v1,forged" } }, "headers.webhook-signature"],
      ["a Host header", { headers: { host: "evil.example" } }, "headers.host"],
      ["a header name with a space", { headers: { "X Bad": "1" } }, "headers.X Bad"],
      ["a header value with a line break", { headers: { "X-Ok": "a\r\nX-Injected: 1" } }, "headers.X-Ok"],
      ["a too long header value", { headers: { "X-Long": "a".repeat(1001) } }, "headers.X-Long"],
      [
        "too many headers",
        { headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, "v"])) },
        "headers",
      ],
      ["a header given twice by case", { headers: { "X-A": "1", "x-a": "2" } }, "headers.x-a"],
      ["an unknown field", { colour: "red" }, "colour"],
      ["a non-string metadata value", { metadata: { a: 1 } }, "metadata.a"],
    ];
    it.each(cases)("%s", async (_title, body, param) => {
      const before = await countEndpoints();
      const response = await create(body);
      expect(response.status).toBe(422);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.body.errors.map((e: { param: string }) => e.param)).toContain(param);
      expect(await countEndpoints()).toBe(before);
    });
  });

  it("allows http and private targets when the operator does", async () => {
    const everything = {
      clock: t.clock,
      env: { TESSERA_ALLOW_HTTP_TARGETS: "1", TESSERA_ALLOW_PRIVATE_TARGETS: "1" },
    };
    const local = await withTestApp(t.store, everything, async (open) => {
      const org = await open.newOrg();
      const created = await open.request("POST", "/v1/webhook_endpoints", {
        key: org.key,
        body: { url: "http://127.0.0.1:9000/hook" },
      });
      expect(created.status).toBe(201);
      return org;
    });
    const httpOnly = { clock: t.clock, env: { TESSERA_ALLOW_HTTP_TARGETS: "1" } };
    const refused = await withTestApp(t.store, httpOnly, (app) =>
      app.request("POST", "/v1/webhook_endpoints", {
        key: local.key,
        body: { url: "http://localhost:9000/hook" },
      }),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].param).toBe("url");
  });

  it("answers 404 for another organization's endpoint on every route", async () => {
    const mine = await create();
    const intruder = await t.newOrg();
    const id = mine.body.id;
    const deliveries = await deliveriesOf(id);
    const attempts: Array<[string, string, unknown?]> = [
      ["GET", `/v1/webhook_endpoints/${id}`],
      ["PATCH", `/v1/webhook_endpoints/${id}`, { description: "mine now" }],
      ["DELETE", `/v1/webhook_endpoints/${id}`],
      ["GET", `/v1/webhook_endpoints/${id}/secret`],
      ["POST", `/v1/webhook_endpoints/${id}/rotate_secret`],
      ["POST", `/v1/webhook_endpoints/${id}/test`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await t.request(method, path, { key: intruder.key, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.text).not.toContain("whsec_");
    }
    const list = await t.request("GET", "/v1/webhook_endpoints", { key: intruder.key });
    expect(list.body.data).toEqual([]);
    const row = await rowOf(id);
    expect(row.description).toBeNull();
    expect(row.previous_secret).toBeNull();
    expect(await deliveriesOf(id)).toEqual(deliveries);
  });

  it("needs webhooks:read to read, and webhooks:write to change or to read the signing secret", async () => {
    const readOnly = await org.addKey({ kind: "read_only" });
    const engineKey = await org.addKey({ kind: "engine", engines: ["growth"], access: "write" });
    const mine = await create();
    expect((await t.request("GET", "/v1/webhook_endpoints", { key: readOnly })).status).toBe(200);
    // Whoever holds the secret can forge deliveries to the organization's own receivers.
    const secret = await t.request("GET", `/v1/webhook_endpoints/${mine.body.id}/secret`, { key: readOnly });
    expect(secret.status).toBe(403);
    expect(secret.headers.get("www-authenticate")).toContain('scope="webhooks:write"');
    expect(secret.text).not.toContain("whsec_");
    const refused = await create({}, readOnly);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="webhooks:write"');
    for (const path of ["rotate_secret", "test"]) {
      const response = await t.request("POST", `/v1/webhook_endpoints/${mine.body.id}/${path}`, {
        key: readOnly,
      });
      expect(response.status).toBe(403);
    }
    expect((await t.request("GET", "/v1/webhook_endpoints", { key: engineKey })).status).toBe(403);
  });

  it("documents the routes in the OpenAPI document and lists the webhook event kinds", async () => {
    const doc = await t.request("GET", "/v1/openapi.json");
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        "/v1/webhook_endpoints",
        "/v1/webhook_endpoints/{id}",
        "/v1/webhook_endpoints/{id}/secret",
        "/v1/webhook_endpoints/{id}/rotate_secret",
        "/v1/webhook_endpoints/{id}/test",
      ]),
    );
    const catalog = await t.request("GET", "/v1/event_types", { key: org.key });
    const types = catalog.body.data.map((entry: { type: string }) => entry.type);
    expect(types).toEqual(
      expect.arrayContaining([
        "webhook_endpoint.created",
        "webhook_endpoint.updated",
        "webhook_endpoint.deleted",
        "webhook_endpoint.disabled",
        "webhook_endpoint.test",
      ]),
    );
    expect(types.length).toBeGreaterThanOrEqual(44);
  });
});
