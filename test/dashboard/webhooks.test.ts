import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, silentLogger } from "../../core/index.ts";
import { OPERATOR_ACTOR } from "../../engines/index.ts";
import { createWebhookWorker } from "../../webhooks/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { startReceiver, testBox, workerStoreKinds, type Receiver } from "../helpers/webhooks.ts";

/**
 * The dashboard's Webhooks pages and Events explorer, through the app as a browser uses them (forms,
 * cookies, redirects), with a real delivery worker and a real receiver: endpoints created with the
 * event-type picker (and refused with the form kept), edited, disabled; the secret revealed only by a
 * POST and rotated; a test event and its delivery with the attempt; retry; recover; the explorer's
 * filter and payload page; what a viewer may not do; CSRF; escaping. test/browser/ drives the same
 * pages in Chromium.
 */
describe.each(workerStoreKinds())("the dashboard's webhooks on $name", (kind) => {
  const t = useTestApp(kind, {
    env: { TESSERA_ALLOW_PRIVATE_TARGETS: "1", TESSERA_ALLOW_HTTP_TARGETS: "1" },
  });
  let org: TestOrg;
  let owner: TestMember;
  let receiver: Receiver;

  const form = (fields: Record<string, string | string[]>) =>
    new URLSearchParams(
      Object.entries(fields).flatMap(([name, value]) =>
        [value].flat().map((item) => [name, item] as [string, string]),
      ),
    ).toString();
  const post = (path: string, fields: Record<string, string | string[]>, member: TestMember = owner) =>
    t.request("POST", path, {
      raw: form({ _csrf: member.csrf, ...fields }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: member.cookie },
    });
  const get = (path: string, member: TestMember = owner) =>
    t.request("GET", path, { headers: { cookie: member.cookie } });
  const runWorker = async () => {
    const config = loadConfig({ TESSERA_DATA_DIR: "/nonexistent", TESSERA_ALLOW_PRIVATE_TARGETS: "1" });
    const worker = createWebhookWorker({
      store: t.store,
      clock: t.clock,
      log: silentLogger,
      config,
      box: testBox,
    });
    try {
      return await worker.runOnce();
    } finally {
      await worker.dispose();
    }
  };
  /** An endpoint made through the service, as `POST /v1/webhook_endpoints` makes one. */
  const endpointOf = (input: { url?: string; event_types?: string[]; description?: string } = {}) =>
    t.services.webhookEndpoints.create(
      org.id,
      { url: receiver.url, event_types: ["contact.created"], ...input },
      OPERATOR_ACTOR,
    );
  const createdId = (location: string | null) =>
    /^\/webhooks\/(we_\w+)\?done=created$/.exec(location ?? "")![1]!;

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it("creates an endpoint with the event-type picker, keeping the form when it is refused", async () => {
    const blank = await get("/webhooks/new");
    expect(blank.status).toBe(200);
    expect(blank.text).toContain('value="invoice.paid"');
    expect(blank.text).toContain('value="contact.*"');
    expect(blank.text).toMatch(/name="scope" value="all"\s+checked/);

    const badUrl = await post("/webhooks/new", {
      url: "ftp://example.com/hook",
      description: "Kept",
      scope: "all",
    });
    expect(badUrl.status).toBe(422);
    expect(badUrl.text).toContain("must use https or http");
    expect(badUrl.text).toContain('value="ftp://example.com/hook"');
    expect(badUrl.text).toContain('value="Kept"');

    const noTypes = await post("/webhooks/new", {
      url: "https://example.com/hook",
      description: "None",
      scope: "some",
    });
    expect(noTypes.status).toBe(422);
    expect(noTypes.text).toContain("Tick at least one kind of event");
    expect(noTypes.text).toContain('value="https://example.com/hook"');
    expect(noTypes.text).toMatch(/name="scope" value="some"\s+checked/);

    const created = await post("/webhooks/new", {
      url: "https://example.com/hook",
      description: "Billing",
      scope: "some",
      event_types: ["invoice.paid", "contact.*"],
      signing_scheme: "v1",
    });
    expect(created.status, created.text).toBe(303);
    const id = createdId(created.headers.get("location"));
    expect((await t.services.webhookEndpoints.get(org.id, id)).event_types).toEqual([
      "invoice.paid",
      "contact.*",
    ]);
    const shown = await get(`/webhooks/${id}?done=created`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("Endpoint created.");
    expect(shown.text).toContain("<code>invoice.paid</code>");
    const list = await get("/webhooks");
    expect(list.text).toContain(`href="/webhooks/${id}"`);
    expect(list.text).toContain("Billing");
    // Its target is not a receiver of this suite: nothing more is sent to it.
    await t.services.webhookEndpoints.delete(org.id, id, OPERATOR_ACTOR);
  });

  it("edits, disables and enables an endpoint, and deletes it after confirmation", async () => {
    const { id } = await endpointOf({ url: "https://example.com/edit" });
    const edit = await get(`/webhooks/${id}/edit`);
    expect(edit.text).toMatch(/value="contact.created"\s+checked/);
    const saved = await post(`/webhooks/${id}/edit`, {
      url: "https://example.com/edited",
      description: "Now all",
      scope: "all",
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/webhooks/${id}?done=updated`);
    const after = await t.services.webhookEndpoints.get(org.id, id);
    expect(after).toMatchObject({
      url: "https://example.com/edited",
      description: "Now all",
      event_types: [],
    });
    expect((await get(`/webhooks/${id}`)).text).toContain("all events");

    expect((await post(`/webhooks/${id}/disable`, {})).status).toBe(303);
    expect(await t.services.webhookEndpoints.get(org.id, id)).toMatchObject({
      enabled: false,
      disabled_reason: "manual",
    });
    const disabled = await get(`/webhooks/${id}`);
    expect(disabled.text).toContain("badge-disabled");
    expect(disabled.text).not.toContain("Send a test event");
    expect(disabled.text).toContain(">Enable</button>");
    // The API's 409, on the page: a disabled endpoint gets no test event.
    const refused = await post(`/webhooks/${id}/test`, {});
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("is disabled");
    expect((await post(`/webhooks/${id}/enable`, {})).status).toBe(303);
    expect((await t.services.webhookEndpoints.get(org.id, id)).enabled).toBe(true);

    expect((await get(`/webhooks/${id}`)).text).toContain("Delete this endpoint");
    const deleted = await post(`/webhooks/${id}/delete`, {});
    expect(deleted.headers.get("location")).toBe("/webhooks?done=deleted");
    expect((await get(`/webhooks/${id}`)).status).toBe(404);
  });

  it("reveals the secret only in a POST's response, and rotates it", async () => {
    const { id, secret } = await endpointOf();
    for (const path of [
      "/webhooks",
      `/webhooks/${id}`,
      `/webhooks/${id}/edit`,
      `/webhooks/${id}/deliveries`,
    ]) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).not.toContain(secret);
      expect(page.text, path).not.toContain(secret.slice(6, 20));
    }
    const revealed = await post(`/webhooks/${id}/secret`, {});
    expect(revealed.status).toBe(200);
    expect(revealed.text).toContain(`id="endpoint-secret" data-copy>${secret}</p>`);
    expect(revealed.headers.get("cache-control")).toBe("no-store");

    const rotated = await post(`/webhooks/${id}/rotate`, {});
    expect(rotated.status).toBe(200);
    const fresh = (await t.services.webhookEndpoints.secret(org.id, id)).secret;
    expect(fresh).not.toBe(secret);
    expect(rotated.text).toContain(fresh);
    expect(rotated.text).toContain("The previous one also signs until");
    expect(rotated.text).toContain("2025-03-16 10:00:00 UTC");
    expect((await get(`/webhooks/${id}`)).text).not.toContain(fresh);
  });

  it("sends a test event and shows its delivery with the attempt's request and response; retries it", async () => {
    const { id } = await endpointOf();
    const sent = await post(`/webhooks/${id}/test`, {});
    expect(sent.status).toBe(303);
    const location = sent.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^/webhooks/${id}/deliveries/whd_\\w+\\?done=test$`));
    const pending = await get(location);
    expect(pending.text).toContain("Test event queued");
    expect(pending.text).toContain("badge-pending");
    expect(pending.text).toContain("data-refresh");

    expect(await runWorker()).toBe(1);
    const received = receiver.received.at(-1)!;
    const delivered = await get(location);
    expect(delivered.text).toContain("badge-succeeded");
    expect(delivered.text).toContain("Attempt 1: HTTP 200");
    expect(delivered.text).toContain(`<dd>${received.headers["webhook-id"]}</dd>`);
    expect(delivered.text).toContain(`<dd>${received.headers["webhook-timestamp"]}</dd>`);
    expect(delivered.text).toContain("&quot;type&quot;:&quot;webhook_endpoint.test&quot;");
    // The body shown is the body sent, byte for byte (escaped for HTML).
    expect(delivered.text).toContain(
      received.body.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;"),
    );
    expect(delivered.text).not.toContain("data-refresh");

    receiver.respond = () => ({ status: 500 });
    try {
      const retried = await post(`${location.split("?")[0]}/retry`, {});
      expect(retried.status).toBe(303);
      expect(await runWorker()).toBe(1);
    } finally {
      receiver.respond = () => ({ status: 200 });
    }
    const again = await get(location.split("?")[0]!);
    expect(again.text).toContain("Attempt 2: HTTP 500");
    expect(again.text).toContain("Attempt 1: HTTP 200");
    expect(again.text).toContain("status 500");
  });

  it("recovers the deliveries that failed since a time", async () => {
    const endpoint = await t.services.webhookEndpoints.create(
      org.id,
      {
        url: receiver.url,
        event_types: ["contact.created"],
        retry_policy: { exponential: { base_s: 1, cap_s: 1 }, max_attempts: 1 },
      },
      OPERATOR_ACTOR,
    );
    receiver.respond = () => ({ status: 503 });
    try {
      const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } });
      expect(contact.status).toBe(201);
      await runWorker();
    } finally {
      receiver.respond = () => ({ status: 200 });
    }
    const failed = await get(`/webhooks/${endpoint.id}/deliveries?status=failed`);
    expect(failed.text).toContain("badge-failed");
    expect(failed.text).toContain('value="2025-03-14T10:00"');

    const bad = await post(`/webhooks/${endpoint.id}/recover`, { since: "yesterday" });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("Give a date and time (UTC).");
    const recovered = await post(`/webhooks/${endpoint.id}/recover`, { since: "2025-03-15T09:00" });
    expect(recovered.status).toBe(200);
    expect(recovered.text).toContain("1 failed delivery is being sent again.");
    expect(await runWorker()).toBe(1);
    const after = await get(`/webhooks/${endpoint.id}/deliveries?status=succeeded`);
    expect(after.text).toContain("contact.created");
    expect((await get(`/webhooks/${endpoint.id}/deliveries?status=failed`)).text).toContain(
      "No deliveries yet.",
    );
  });

  it("explores events by type, with each payload and a link to its object", async () => {
    const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "<b>Grace</b>" } });
    const filtered = await get("/events?type=contact.created");
    expect(filtered.status).toBe(200);
    expect(filtered.text).toMatch(/value="contact.created"\s+selected/);
    expect(filtered.text).toContain("<code>contact.created</code>");
    expect(filtered.text).not.toContain("<code>webhook_endpoint.created</code>");
    expect(filtered.text).toContain(`href="/data/contacts/${contact.body.id}"`);
    const family = await get("/events?type=webhook_endpoint.*");
    expect(family.text).toContain("<code>webhook_endpoint.created</code>");
    expect(family.text).not.toContain("<code>contact.created</code>");
    expect((await get("/events?type=nonsense.kind")).status).toBe(400);

    const eventId = /href="\/events\/(evt_\w+)"/.exec(filtered.text)![1]!;
    const payload = await get(`/events/${eventId}`);
    expect(payload.status).toBe(200);
    expect(payload.text).toContain(`&quot;type&quot;: &quot;contact.created&quot;`);
    expect(payload.text).toContain("&lt;b&gt;Grace&lt;/b&gt;");
    expect(payload.text).not.toContain("<b>Grace</b>");
    expect((await get("/events/evt_doesnotexist")).status).toBe(404);
  });

  it("shows a viewer no write buttons and refuses its posts; a post without the CSRF token is refused", async () => {
    const { id } = await endpointOf();
    const viewer = await signedInMember(t, org.id, "viewer");
    const list = await get("/webhooks", viewer);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain("Add an endpoint");
    const page = await get(`/webhooks/${id}`, viewer);
    expect(page.status).toBe(200);
    for (const write of ["Send a test event", "Disable", "Rotate", "Delete", `/webhooks/${id}/edit`]) {
      expect(page.text).not.toContain(write);
    }
    expect((await get("/webhooks/new", viewer)).status).toBe(403);
    for (const path of [
      "/webhooks/new",
      `/webhooks/${id}/disable`,
      `/webhooks/${id}/rotate`,
      `/webhooks/${id}/test`,
    ]) {
      expect((await post(path, { url: "https://example.com/x", scope: "all" }, viewer)).status, path).toBe(
        403,
      );
    }
    expect((await get("/events", viewer)).status).toBe(200);

    const noCsrf = await t.request("POST", `/webhooks/${id}/disable`, {
      raw: "",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: owner.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect((await t.services.webhookEndpoints.get(org.id, id)).enabled).toBe(true);

    // Another organization's endpoint is not found, as on the API.
    const other = await t.newOrg();
    const theirs = await t.services.webhookEndpoints.create(
      other.id,
      { url: "https://example.com/theirs" },
      OPERATOR_ACTOR,
    );
    expect((await get(`/webhooks/${theirs.id}`)).status).toBe(404);
    expect((await post(`/webhooks/${theirs.id}/secret`, {})).status).toBe(404);
  });

  it("escapes what users wrote", async () => {
    const hostile = "<img src=x onerror=alert(1)>";
    const { id } = await endpointOf({ url: "https://example.com/escape", description: hostile });
    for (const path of ["/webhooks", `/webhooks/${id}`, `/webhooks/${id}/edit`]) {
      const page = await get(path);
      expect(page.text, path).not.toContain(hostile);
      expect(page.text, path).toContain("&lt;img src=x onerror=alert(1)&gt;");
    }
    const events = await get("/events?type=webhook_endpoint.created");
    const eventId = /href="\/events\/(evt_\w+)"/.exec(events.text)![1]!;
    const payload = await get(`/events/${eventId}`);
    expect(payload.text).not.toContain(hostile);
    expect(payload.headers.get("content-security-policy")).toContain("script-src 'self'");
  });
});
