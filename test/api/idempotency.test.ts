import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import type { Store } from "../../store/index.ts";
import { createTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { createFaultyStore, type FaultyStore } from "../helpers/faults.ts";
import { storeKinds } from "../helpers/stores.ts";

const HOUR_MS = 3_600_000;

describe.each(storeKinds())("Idempotency-Key on $name", (kind) => {
  let store: Store;
  let faulty: FaultyStore;
  let t: TestApp;

  beforeAll(async () => {
    store = await kind.open();
    // The faulty wrapper lets a test hold a request in flight or fail it on our side.
    faulty = createFaultyStore(store);
    t = await createTestApp(faulty.store);
    t.clock.set("2025-03-15T10:00:00Z");
  });
  afterAll(async () => {
    await t.dispose();
    await store.dispose();
  });

  const newKey = () => `idem-${randomBase62(16)}`;
  const post = (org: TestOrg, key: string, body: unknown, path = "/v1/contacts") =>
    t.request("POST", path, { key: org.key, body, headers: { "idempotency-key": key } });
  const total = async (org: TestOrg, path = "/v1/contacts") =>
    (await t.request("GET", path, { key: org.key })).body.meta.total as number;

  it("replays the stored response byte for byte and creates the object once", async () => {
    const org = await t.newOrg();
    const key = newKey();
    const first = await post(org, key, { name: "Ada", tags: ["vip"] });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    t.clock.advance(60_000);
    const again = await post(org, key, { name: "Ada", tags: ["vip"] });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    // The replay is a response of its own: a fresh request id, current rate-limit headers.
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(again.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect(await total(org)).toBe(1);
  });

  it("replays a PATCH instead of applying it twice", async () => {
    const org = await t.newOrg();
    const created = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } });
    const url = `/v1/contacts/${created.body.id}`;
    const key = newKey();
    const patch = (body: unknown) =>
      t.request("PATCH", url, { key: org.key, body, headers: { "idempotency-key": key } });

    const first = await patch({ metadata: { step: "1" } });
    expect(first.status).toBe(200);
    await t.request("PATCH", url, { key: org.key, body: { metadata: { step: "2" } } });
    const again = await patch({ metadata: { step: "1" } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect((await t.request("GET", url, { key: org.key })).body.metadata).toEqual({ step: "2" });
  });

  it("answers 422 idempotency_key_reused when the key comes back with another body", async () => {
    const org = await t.newOrg();
    const key = newKey();
    expect((await post(org, key, { name: "Ada" })).status).toBe(201);

    const other = await post(org, key, { name: "Bob" });
    expect(other.status).toBe(422);
    expect(other.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(other.body.code).toBe("idempotency_key_reused");
    expect(other.body.errors[0].param).toBe("Idempotency-Key");
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(await total(org)).toBe(1);
  });

  it("answers 422 when the key comes back on another path", async () => {
    const org = await t.newOrg();
    const key = newKey();
    expect((await post(org, key, { name: "Widget" })).status).toBe(201);
    const product = await post(org, key, { name: "Widget", price: 1, currency: "EUR" }, "/v1/products");
    expect(product.status).toBe(422);
    expect(product.body.code).toBe("idempotency_key_reused");
    expect(await total(org, "/v1/products")).toBe(0);
  });

  it("answers 409 idempotency_key_in_use while the first request is still in flight", async () => {
    const org = await t.newOrg();
    const key = newKey();
    const held = faulty.holdNextTransaction();
    const first = post(org, key, { name: "Slow" });
    await held.reached;

    const concurrent = await post(org, key, { name: "Slow" });
    expect(concurrent.status).toBe(409);
    expect(concurrent.body.code).toBe("idempotency_key_in_use");

    held.release();
    const finished = await first;
    expect(finished.status).toBe(201);
    const after = await post(org, key, { name: "Slow" });
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(after.text).toBe(finished.text);
    expect(await total(org)).toBe(1);
  });

  it("keeps keys per organization: two organizations may use the same key", async () => {
    const [one, two] = [await t.newOrg(), await t.newOrg()];
    const key = newKey();
    const a = await post(one, key, { name: "Ada" });
    const b = await post(two, key, { name: "Ada" });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    expect(await total(one)).toBe(1);
    expect(await total(two)).toBe(1);
  });

  it("replays for 24 hours, after which the key is usable anew", async () => {
    const org = await t.newOrg();
    const key = newKey();
    const first = await post(org, key, { name: "Ada" });

    t.clock.advance(23 * HOUR_MS);
    const within = await post(org, key, { name: "Ada" });
    expect(within.headers.get("idempotent-replayed")).toBe("true");
    expect(within.body.id).toBe(first.body.id);

    t.clock.advance(HOUR_MS + 1_000);
    const reused = await post(org, key, { name: "Bob" });
    expect(reused.status).toBe(201);
    expect(reused.headers.get("idempotent-replayed")).toBeNull();
    expect(reused.body.name).toBe("Bob");
    const replayed = await post(org, key, { name: "Bob" });
    expect(replayed.body.id).toBe(reused.body.id);
    expect(await total(org)).toBe(2);
  });

  it("replays a request that failed validation as the same 422", async () => {
    const org = await t.newOrg();
    const key = newKey();
    const first = await post(org, key, { email: "not-an-email" });
    expect(first.status).toBe(422);
    expect(first.body.code).toBe("validation_failed");

    const again = await post(org, key, { email: "not-an-email" });
    expect(again.status).toBe(422);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(again.text).toBe(first.text);
    expect(await total(org)).toBe(0);
  });

  it("does not store a failure on our side, so the retry runs anew", async () => {
    const org = await t.newOrg();
    const key = newKey();
    faulty.failQueries(/INSERT INTO contacts/, new Error("connection reset"));
    const failed = await post(org, key, { name: "Ada" });
    faulty.heal();
    expect(failed.status).toBe(500);

    const retried = await post(org, key, { name: "Ada" });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await total(org)).toBe(1);
  });

  it.each([
    ["300 characters", "k".repeat(300)],
    ["a space", "two words"],
    ["a non-ASCII character", "clé"],
    ["nothing", ""],
  ])("answers 400 for a key of %s", async (_, key) => {
    const org = await t.newOrg();
    const response = await post(org, key, { name: "Ada" });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("invalid_request");
    expect(response.body.errors[0].param).toBe("Idempotency-Key");
    expect(await total(org)).toBe(0);
  });

  it("passes a streamed answer on as it is written, and replays it whole once it ended", async () => {
    const org = await t.newOrg();
    const key = newKey();
    const chat = () =>
      t.fetch("/v1/sync/chat", {
        method: "POST",
        headers: {
          authorization: `Bearer ${org.key}`,
          "content-type": "application/json",
          accept: "text/event-stream",
          "idempotency-key": key,
        },
        body: JSON.stringify({ message: "how many contacts do we have?" }),
      });
    // SYNC stores the interaction in a transaction after its reply's deltas are written: held there,
    // the caller has the reply's first event already, and not yet its end.
    const held = faulty.holdNextTransaction();
    const response = await chat();
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("event: delta");
    await held.reached;
    expect((await chat()).status).toBe(409);
    held.release();
    let text = first;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += new TextDecoder().decode(chunk.value);
    expect(text).toContain("event: interaction");
    // Stored when it ended: the same key replays the same events.
    let replay = await chat();
    for (let tries = 0; replay.status === 409 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      replay = await chat();
    }
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(text);
  });

  it("accepts a key of 255 characters", async () => {
    const org = await t.newOrg();
    const response = await post(org, "k".repeat(255), { name: "Ada" });
    expect(response.status).toBe(201);
  });

  it("ignores the key on DELETE, which is idempotent by itself", async () => {
    const org = await t.newOrg();
    const created = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } });
    const url = `/v1/contacts/${created.body.id}`;
    const headers = { "idempotency-key": newKey() };
    expect((await t.request("DELETE", url, { key: org.key, headers })).status).toBe(204);
    expect((await t.request("DELETE", url, { key: org.key, headers })).status).toBe(404);
  });
});
