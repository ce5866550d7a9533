import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, silentLogger } from "../../core/index.ts";
import { createWebhookWorker } from "../../webhooks/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import {
  insertEndpoint,
  startReceiver,
  testBox,
  workerStoreKinds,
  type Receiver,
} from "../helpers/webhooks.ts";

/** One attempt in all: a 500 fails the delivery at once. */
const ONE_ATTEMPT = { exponential: { base_s: 1, cap_s: 1 }, max_attempts: 1 };

describe.each(workerStoreKinds())("webhook deliveries API on $name", (kind) => {
  let org: TestOrg;
  let other: TestOrg;
  let receiver: Receiver;

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
  const createContact = async (name: string) => {
    const res = await t.request("POST", "/v1/contacts", { key: org.key, body: { name } });
    expect(res.status).toBe(201);
  };

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    other = await t.newOrg();
    receiver = await startReceiver(() => ({ status: 500 }));
  });
  afterEach(() => t.store.query("UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'pending'"));
  afterAll(async () => {
    await receiver.close();
    await t.store.dispose();
  });

  it("lists an endpoint's deliveries, its attempts, and an event's deliveries; other orgs get 404", async () => {
    const endpoint = await insertEndpoint(t.store, receiver.url, {
      orgId: org.id,
      retry_policy: ONE_ATTEMPT,
    });
    await createContact("Ada");
    await createContact("Grace");
    expect(await runWorker()).toBe(2);

    const list = await t.request("GET", `/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: org.key });
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 2, page: 1, per_page: 25 });
    const [latest] = list.body.data;
    expect(latest).toMatchObject({
      object: "webhook_delivery",
      endpoint_id: endpoint.id,
      event_type: "contact.created",
      status: "failed",
      attempts: 1,
      last_status_code: 500,
      next_attempt_at: null,
    });
    const filtered = await t.request(
      "GET",
      `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=succeeded`,
      {
        key: org.key,
      },
    );
    expect(filtered.body.meta.total).toBe(0);
    const bad = await t.request("GET", `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=lost`, {
      key: org.key,
    });
    expect(bad.status).toBe(400);

    const one = await t.request("GET", `/v1/webhook_deliveries/${latest.id}`, { key: org.key });
    expect(one.body).toEqual(latest);
    const attempts = await t.request("GET", `/v1/webhook_deliveries/${latest.id}/attempts`, { key: org.key });
    expect(attempts.body.data).toEqual([
      expect.objectContaining({
        object: "webhook_attempt",
        attempt: 1,
        status_code: 500,
        response_body: "ok",
      }),
    ]);
    const byEvent = await t.request("GET", `/v1/events/${latest.event_id}/deliveries`, { key: org.key });
    expect(byEvent.body.data).toEqual([latest]);

    for (const path of [
      `/v1/webhook_endpoints/${endpoint.id}/deliveries`,
      `/v1/webhook_deliveries/${latest.id}`,
      `/v1/webhook_deliveries/${latest.id}/attempts`,
      `/v1/events/${latest.event_id}/deliveries`,
    ]) {
      expect((await t.request("GET", path, { key: other.key })).status).toBe(404);
    }
    expect(
      (await t.request("POST", `/v1/webhook_deliveries/${latest.id}/retry`, { key: other.key })).status,
    ).toBe(404);
  });

  it("retries a failed delivery now and recovers every failed one since a time", async () => {
    const endpoint = await insertEndpoint(t.store, receiver.url, {
      orgId: org.id,
      retry_policy: ONE_ATTEMPT,
    });
    const since = t.clock.now().toISOString();
    await createContact("Ada");
    await createContact("Grace");
    await runWorker();
    const list = await t.request("GET", `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=failed`, {
      key: org.key,
    });
    expect(list.body.meta.total).toBe(2);

    t.clock.advance(60_000);
    receiver.respond = () => ({ status: 200 });
    const retried = await t.request("POST", `/v1/webhook_deliveries/${list.body.data[0].id}/retry`, {
      key: org.key,
    });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ status: "pending", next_attempt_at: "2025-03-15T10:01:00Z" });
    expect(await runWorker()).toBe(1);
    expect(
      (await t.request("GET", `/v1/webhook_deliveries/${list.body.data[0].id}`, { key: org.key })).body,
    ).toMatchObject({ status: "succeeded", attempts: 2 });

    const recovered = await t.request("POST", `/v1/webhook_endpoints/${endpoint.id}/recover`, {
      key: org.key,
      body: { since },
    });
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({
      object: "webhook_recovery",
      endpoint_id: endpoint.id,
      since: since.replace(/\.\d{3}Z$/, "Z"),
      requeued: 1,
    });
    expect(await runWorker()).toBe(1);
    const failed = await t.request("GET", `/v1/webhook_endpoints/${endpoint.id}/deliveries?status=failed`, {
      key: org.key,
    });
    expect(failed.body.meta.total).toBe(0);
    receiver.respond = () => ({ status: 500 });
  });

  it("refuses to retry or recover for a disabled endpoint, and checks the body and the scope", async () => {
    const endpoint = await insertEndpoint(t.store, receiver.url, {
      orgId: org.id,
      retry_policy: ONE_ATTEMPT,
    });
    await createContact("Ada");
    await runWorker();
    const [delivery] = (
      await t.request("GET", `/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: org.key })
    ).body.data;
    await t.store.query("UPDATE webhook_endpoints SET enabled = false WHERE id = $1", [endpoint.id]);
    expect(
      (await t.request("POST", `/v1/webhook_deliveries/${delivery.id}/retry`, { key: org.key })).status,
    ).toBe(409);
    const recover = (body: unknown, key = org.key) =>
      t.request("POST", `/v1/webhook_endpoints/${endpoint.id}/recover`, { key, body });
    expect((await recover({ since: "2025-03-01T00:00:00Z" })).status).toBe(409);
    expect((await recover({ since: "yesterday" })).status).toBe(422);
    const readOnly = await org.addKey({ kind: "read_only" });
    expect((await recover({ since: "2025-03-01T00:00:00Z" }, readOnly)).status).toBe(403);
    expect(
      (await t.request("GET", `/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: readOnly })).status,
    ).toBe(200);
  });

  it("documents the routes in the OpenAPI document", async () => {
    const doc = await t.request("GET", "/v1/openapi.json");
    for (const path of [
      "/v1/webhook_endpoints/{id}/deliveries",
      "/v1/webhook_endpoints/{id}/recover",
      "/v1/webhook_deliveries/{id}",
      "/v1/webhook_deliveries/{id}/attempts",
      "/v1/webhook_deliveries/{id}/retry",
      "/v1/events/{id}/deliveries",
    ]) {
      expect(doc.body.paths[path], path).toBeDefined();
    }
  });
});
