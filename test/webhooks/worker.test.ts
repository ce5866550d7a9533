import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeClock, loadConfig, silentLogger } from "../../core/index.ts";
import { getEvent, recordEvents } from "../../engines/index.ts";
import { nextClaimable, queueStats, type Store } from "../../store/index.ts";
import { countingStore } from "../helpers/counting-store.ts";
import { DELIVERY_QUEUE } from "../../webhooks/delivery-queries.ts";
import { createWebhookWorker, type WebhookWorker } from "../../webhooks/worker.ts";
import {
  insertEndpoint,
  startReceiver,
  testBox,
  workerStoreKinds,
  type Receiver,
  type TestEndpoint,
} from "../helpers/webhooks.ts";

const DAY_MS = 86_400_000;

describe.each(workerStoreKinds())("webhook delivery on $name", (kind) => {
  let store: Store;
  let receiver: Receiver;
  const workers: WebhookWorker[] = [];
  const clock = new FakeClock("2025-03-15T10:00:00Z");

  const worker = (env: Record<string, string> = {}, concurrency = 8) => {
    const config = loadConfig({
      TESSERA_DATA_DIR: "/nonexistent",
      TESSERA_ALLOW_PRIVATE_TARGETS: "1",
      ...env,
    });
    const created = createWebhookWorker({
      store,
      clock,
      log: silentLogger,
      config,
      box: testBox,
      concurrency,
      random: () => 0.5,
      pollMs: 50,
    });
    workers.push(created);
    return created;
  };
  const emit = async (endpoint: TestEndpoint, type = "contact.created") => {
    const [id] = await store.transaction((tx) =>
      recordEvents(tx, endpoint.orgId, clock.now(), [{ type, object: { id: "con_1", name: "Ada" } }]),
    );
    return id!;
  };
  const delivery = async (endpoint: TestEndpoint, eventId: string) => {
    const [row] = await store.query(
      "SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = $2",
      [endpoint.id, eventId],
    );
    return row!;
  };
  const attempts = async (deliveryId: string) =>
    store.query("SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt", [deliveryId]);
  const endpointRow = async (id: string) =>
    (await store.query("SELECT * FROM webhook_endpoints WHERE id = $1", [id]))[0]!;

  beforeAll(async () => {
    store = await kind.open();
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.dispose();
    await receiver?.close();
    // Leave nothing due for the next test's worker.
    await store.query("UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'pending'");
  });
  afterAll(() => store.dispose());

  it("delivers the event as GET /v1/events/{id} renders it, with headers standardwebhooks verifies", async () => {
    clock.set(new Date()); // Webhook.verify checks the timestamp against the real time
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, `${receiver.url}/hooks`, {
      headers: { "x-tenant": "acme" },
    });
    const eventId = await emit(endpoint);
    expect(await worker().runOnce()).toBe(1);

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.path).toBe("/hooks");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["user-agent"]).toBe("Tessera-Webhooks/1");
    expect(request!.headers["x-tenant"]).toBe("acme");
    expect(request!.headers["webhook-id"]).toBe(eventId);
    expect(request!.body).toBe(JSON.stringify(await getEvent(store, endpoint.orgId, eventId)));
    const verified = new Webhook(endpoint.secret).verify(request!.body, request!.headers);
    expect(verified).toMatchObject({ id: eventId, object: "event", type: "contact.created" });

    const row = await delivery(endpoint, eventId);
    expect(row).toMatchObject({ status: "succeeded", attempts: 1, next_attempt_at: null, locked_by: null });
    const [attempt] = await attempts(row.id as string);
    expect(attempt).toMatchObject({ attempt: 1, status_code: 200, response_body: "ok", error: null });
  });

  it("records a burst of successes together, each with its own attempt, and ends a failing run", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url);
    await store.query("UPDATE webhook_endpoints SET failing_since = $2::timestamptz WHERE id = $1", [
      endpoint.id,
      "2025-03-14T10:00:00Z",
    ]);
    const eventIds = [];
    for (let i = 0; i < 20; i++) eventIds.push(await emit(endpoint));
    expect(await worker({}, 32).runOnce()).toBe(20);

    const rows = await store.query<{
      id: string;
      status: string;
      attempts: number;
      locked_by: string | null;
    }>("SELECT id, status, attempts, locked_by FROM webhook_deliveries WHERE endpoint_id = $1", [
      endpoint.id,
    ]);
    expect(rows).toHaveLength(20);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "succeeded", attempts: 1, locked_by: null });
      expect(await attempts(row.id)).toEqual([expect.objectContaining({ attempt: 1, status_code: 200 })]);
    }
    expect((await endpointRow(endpoint.id)).failing_since).toBeNull();
  });

  it("retries a 500 after the scheduled delay, with the same webhook-id", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver(() => ({ status: 500 }));
    const endpoint = await insertEndpoint(store, receiver.url);
    const eventId = await emit(endpoint);
    const w = worker();
    expect(await w.runOnce()).toBe(1);
    let row = await delivery(endpoint, eventId);
    expect(row).toMatchObject({ status: "pending", attempts: 1, last_status_code: 500 });
    expect(row.next_attempt_at).toEqual(new Date("2025-03-15T10:00:05Z"));
    expect((await endpointRow(endpoint.id)).failing_since).toEqual(new Date("2025-03-15T10:00:00Z"));

    clock.advance(4_000);
    expect(await w.runOnce()).toBe(0);
    clock.advance(1_000);
    receiver.respond = () => ({ status: 204 });
    expect(await w.runOnce()).toBe(1);
    row = await delivery(endpoint, eventId);
    expect(row).toMatchObject({ status: "succeeded", attempts: 2, last_status_code: 204 });
    expect((await endpointRow(endpoint.id)).failing_since).toBeNull();
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId]);
    expect((await attempts(row.id as string)).map((a) => a.status_code)).toEqual([500, 204]);
  });

  it("gives up after the policy's last attempt", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver(() => ({ status: 502 }));
    const endpoint = await insertEndpoint(store, receiver.url, { retry_policy: { schedule_s: [1] } });
    const eventId = await emit(endpoint);
    const w = worker();
    await w.runOnce();
    clock.advance(1_000);
    await w.runOnce();
    const row = await delivery(endpoint, eventId);
    expect(row).toMatchObject({ status: "failed", attempts: 2, next_attempt_at: null });
  });

  it("honours Retry-After on 429", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver(() => ({ status: 429, headers: { "retry-after": "120" } }));
    const endpoint = await insertEndpoint(store, receiver.url);
    const eventId = await emit(endpoint);
    await worker().runOnce();
    const row = await delivery(endpoint, eventId);
    expect(row.next_attempt_at).toEqual(new Date("2025-03-15T10:02:00Z"));
    expect((await attempts(row.id as string))[0]!.response_headers).toMatchObject({ "retry-after": "120" });
  });

  it("disables the endpoint on 410 and records webhook_endpoint.disabled", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver(() => ({ status: 410 }));
    const endpoint = await insertEndpoint(store, receiver.url);
    const first = await emit(endpoint);
    const w = worker({}, 1);
    expect(await w.runOnce()).toBe(1);
    expect(await delivery(endpoint, first)).toMatchObject({ status: "failed", attempts: 1 });
    expect(await endpointRow(endpoint.id)).toMatchObject({ enabled: false, disabled_reason: "gone" });
    const events = await store.query("SELECT * FROM events WHERE org_id = $1 AND type = $2", [
      endpoint.orgId,
      "webhook_endpoint.disabled",
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ object: { id: endpoint.id, disabled_reason: "gone" } });
    expect(JSON.stringify(events[0]!.data)).not.toContain("whsec_");
  });

  it("closes a disabled endpoint's pending deliveries without sending them", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url);
    const eventId = await emit(endpoint);
    await store.query(
      "UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'manual' WHERE id = $1",
      [endpoint.id],
    );
    expect(await worker().runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    expect(await delivery(endpoint, eventId)).toMatchObject({
      status: "failed",
      last_error: "endpoint disabled",
    });
  });

  it("disables an endpoint that failed continuously for longer than the operator's days", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver(() => ({ status: 500 }));
    const endpoint = await insertEndpoint(store, receiver.url);
    const w = worker({ TESSERA_WEBHOOK_DISABLE_AFTER_DAYS: "5" });
    await emit(endpoint);
    await w.runOnce();
    clock.advance(4 * DAY_MS);
    await emit(endpoint);
    await w.runOnce();
    expect(await endpointRow(endpoint.id)).toMatchObject({ enabled: true });
    clock.advance(DAY_MS + 1_000);
    await emit(endpoint);
    await w.runOnce();
    expect(await endpointRow(endpoint.id)).toMatchObject({ enabled: false, disabled_reason: "failing" });
    const events = await store.query("SELECT data FROM events WHERE org_id = $1 AND type = $2", [
      endpoint.orgId,
      "webhook_endpoint.disabled",
    ]);
    expect(
      events.map((e) => (e.data as { object: { disabled_reason: string } }).object.disabled_reason),
    ).toEqual(["failing"]);
  });

  it("records a timeout when the receiver hangs", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver(() => "hang");
    const endpoint = await insertEndpoint(store, receiver.url);
    const eventId = await emit(endpoint);
    await worker({ TESSERA_WEBHOOK_TIMEOUT_MS: "200" }).runOnce();
    const row = await delivery(endpoint, eventId);
    expect(row).toMatchObject({
      status: "pending",
      last_status_code: null,
      last_error: "timeout after 200 ms",
    });
  });

  it("waits while a slow send is in flight instead of asking the store again and again", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver(() => ({ status: 200, delayMs: 1_500 }));
    const endpoint = await insertEndpoint(store, receiver.url);
    const eventId = await emit(endpoint);
    const counted = countingStore(store);
    const looping = createWebhookWorker({
      store: counted.store,
      clock,
      log: silentLogger,
      config: loadConfig({ TESSERA_DATA_DIR: "/nonexistent", TESSERA_ALLOW_PRIVATE_TARGETS: "1" }),
      box: testBox,
      pollMs: 500,
    });
    workers.push(looping);
    await looping.start();
    for (let i = 0; i < 100 && (await delivery(endpoint, eventId)).status !== "succeeded"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await delivery(endpoint, eventId)).status).toBe("succeeded");
    // About 1.5 s of a send in flight at a 500 ms poll: a handful of cycles, not a busy loop.
    expect(counted.calls()).toBeLessThan(40);
  });

  it("reports the queue as an operator watches it: depth, lag, and the next instant a worker could claim", async () => {
    clock.set("2025-03-15T10:00:00Z");
    const endpoint = await insertEndpoint(store, "http://127.0.0.1:9/never");
    for (let i = 0; i < 3; i++) await emit(endpoint);
    const due = (
      await store.query<{ at: Date }>(
        "SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending'",
      )
    )[0]!.at;
    const later = new Date(due.getTime() + 30_000);
    expect(await queueStats(store, DELIVERY_QUEUE, later)).toEqual({ queued: 3, lagSeconds: 30 });
    expect(await queueStats(store, DELIVERY_QUEUE, new Date(due.getTime() - 1_000))).toEqual({
      queued: 3,
      lagSeconds: 0,
    });
    // Leased to a worker: still queued, but nobody is behind, and the lease's end is when one could claim it.
    const leaseEnd = new Date(later.getTime() + 60_000);
    await store.query("UPDATE webhook_deliveries SET locked_until = $1 WHERE status = 'pending'", [
      leaseEnd.toISOString(),
    ]);
    expect(await queueStats(store, DELIVERY_QUEUE, later)).toEqual({ queued: 3, lagSeconds: 0 });
    expect((await nextClaimable(store, DELIVERY_QUEUE, later))?.getTime()).toBe(leaseEnd.getTime());
    await store.query("UPDATE webhook_deliveries SET status = 'succeeded' WHERE status = 'pending'");
    expect(await queueStats(store, DELIVERY_QUEUE, later)).toEqual({ queued: 0, lagSeconds: 0 });
    expect(await nextClaimable(store, DELIVERY_QUEUE, later)).toBeNull();
  });

  it("records a 301 as a failure and does not follow it", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver((request) =>
      request.path === "/old" ? { status: 301, headers: { location: "/new" } } : { status: 200 },
    );
    const endpoint = await insertEndpoint(store, `${receiver.url}/old`);
    const eventId = await emit(endpoint);
    await worker().runOnce();
    expect(receiver.received.map((r) => r.path)).toEqual(["/old"]);
    const row = await delivery(endpoint, eventId);
    expect(row).toMatchObject({ status: "pending", last_status_code: 301 });
    expect(row.last_error).toMatch(/redirect not followed/);
  });

  it("records a refused connection", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url);
    await receiver.close();
    const eventId = await emit(endpoint);
    await worker().runOnce();
    expect(await delivery(endpoint, eventId)).toMatchObject({
      status: "pending",
      last_error: "connection refused",
    });
  });

  it("refuses a loopback target at connect time unless private targets are allowed", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const literal = await insertEndpoint(store, receiver.url);
    // A name is judged after resolution, in the socket's lookup: what DNS rebinding would exploit.
    const named = await insertEndpoint(store, `http://localhost:${port}/`);
    const [a, b] = [await emit(literal), await emit(named)];
    expect(await worker({ TESSERA_ALLOW_PRIVATE_TARGETS: "0" }).runOnce()).toBe(2);
    expect(receiver.received).toHaveLength(0);
    expect((await delivery(literal, a)).last_error).toMatch(/^blocked address/);
    expect((await delivery(named, b)).last_error).toMatch(/^blocked address: localhost resolves to/);
    const [attempt] = await attempts((await delivery(named, b)).id as string);
    expect(attempt).toMatchObject({ status_code: null });
  });

  it("does not let a slow endpoint delay another endpoint's delivery", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver((request) => (request.path === "/slow" ? "hang" : { status: 200 }));
    const slow = await insertEndpoint(store, `${receiver.url}/slow`);
    const fast = await insertEndpoint(store, `${receiver.url}/fast`);
    const w = worker({ TESSERA_WEBHOOK_TIMEOUT_MS: "30000" });
    await w.start();
    await emit(slow);
    await receiver.waitFor(1);
    const fastEvent = await emit(fast);
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => r.path)).toEqual(["/slow", "/fast"]);
    // The fast one is recorded while the slow one is still in flight.
    await expect.poll(async () => (await delivery(fast, fastEvent)).status).toBe("succeeded");
    const slowRow = (
      await store.query("SELECT * FROM webhook_deliveries WHERE endpoint_id = $1", [slow.id])
    )[0]!;
    expect(slowRow).toMatchObject({ status: "pending", attempts: 0 });
    expect(slowRow.locked_by).not.toBeNull();
    await receiver.close();
  });

  it("never lets two workers send one delivery at the same time", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url);
    const ids = [];
    for (let i = 0; i < 40; i++) ids.push(await emit(endpoint));
    const [one, two] = [worker({}, 4), worker({}, 4)];
    let sent = 0;
    for (let round = 0; round < 20 && sent < ids.length; round++) {
      const counts = await Promise.all([one.runOnce(), two.runOnce()]);
      sent += counts[0] + counts[1];
    }
    expect(sent).toBe(ids.length);
    const seen = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it("sends no more than an endpoint's rate limit per second", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url, { rate_limit_per_s: 2 });
    for (let i = 0; i < 5; i++) await emit(endpoint);
    const w = worker();
    expect(await w.runOnce()).toBe(2);
    expect(await w.runOnce()).toBe(0);
    clock.advance(1_001);
    expect(await w.runOnce()).toBe(2);
    clock.advance(1_001);
    expect(await w.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(5);
  });

  it("takes back the delivery of a worker whose lease passed", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url);
    const eventId = await emit(endpoint);
    // A worker that claimed it and died: the lease is set, nothing was recorded.
    await store.query(
      "UPDATE webhook_deliveries SET locked_by = 'dead', locked_until = $2 WHERE event_id = $1",
      [eventId, new Date(clock.nowMs() + 20_000)],
    );
    const w = worker();
    expect(await w.runOnce()).toBe(0);
    clock.advance(20_001);
    expect(await w.runOnce()).toBe(1);
    expect(await delivery(endpoint, eventId)).toMatchObject({ status: "succeeded", locked_by: null });
  });
  it("hands back what it claimed ahead when it stops: another worker sends each at once, once", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await emit(endpoint));
    const first = worker({}, 2);
    expect(await first.runOnce()).toBe(2);
    // The other 8 were claimed ahead: leased to it, not sent. Stopping releases them.
    await first.dispose();
    const pending = await store.query(
      "SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'",
      [endpoint.id],
    );
    expect(pending).toHaveLength(8);
    expect(pending.every((row) => row.locked_by === null && row.attempts === 0)).toBe(true);
    // No lease to wait out: the clock has not moved.
    expect(await worker({}, 8).runOnce()).toBe(8);
    expect(receiver.received.map((r) => r.headers["webhook-id"]).sort()).toEqual([...ids].sort());
  });

  it("records each receiver's answer in a batch where one receiver fails, the others' untouched", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver((request) =>
      request.path === "/down" ? { status: 500 } : { status: 204 },
    );
    const up = await insertEndpoint(store, `${receiver.url}/up`);
    const down = await insertEndpoint(store, `${receiver.url}/down`);
    for (let i = 0; i < 6; i++) {
      await emit(up);
      await emit(down);
    }
    expect(await worker({}, 16).runOnce()).toBe(12);
    const rows = await store.query("SELECT * FROM webhook_deliveries WHERE endpoint_id = ANY($1::text[])", [
      [up.id, down.id],
    ]);
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      const [attempt, ...more] = await attempts(row.id as string);
      expect(more).toEqual([]);
      if (row.endpoint_id === up.id) {
        expect(row).toMatchObject({
          status: "succeeded",
          attempts: 1,
          locked_by: null,
          next_attempt_at: null,
        });
        expect(attempt).toMatchObject({ attempt: 1, status_code: 204, error: null });
      } else {
        expect(row).toMatchObject({ status: "pending", attempts: 1, locked_by: null });
        expect(row.next_attempt_at).toEqual(new Date(clock.nowMs() + 5_000));
        expect(attempt).toMatchObject({ attempt: 1, status_code: 500, error: "status 500" });
      }
    }
    expect((await endpointRow(up.id)).failing_since).toBeNull();
    expect((await endpointRow(down.id)).failing_since).not.toBeNull();
  });

  it("loses nothing when a worker dies between sending a batch and recording it", async () => {
    clock.set("2025-03-15T10:00:00Z");
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(store, receiver.url);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await emit(endpoint));
    // Its records wait at a gate: once its batch is sent, it is as good as killed (kill -9).
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated = new Proxy(store, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name);
        if (name !== "query") return typeof value === "function" ? value.bind(target) : value;
        return async (sql: string, params?: unknown[]) => {
          if (sql.includes("INSERT INTO webhook_attempts")) await gate;
          return target.query(sql, params);
        };
      },
    });
    const dying = createWebhookWorker({
      store: gated,
      clock,
      log: silentLogger,
      config: loadConfig({ TESSERA_DATA_DIR: "/nonexistent", TESSERA_ALLOW_PRIVATE_TARGETS: "1" }),
      box: testBox,
      concurrency: 8,
    });
    workers.push(dying);
    const dyingRun = dying.runOnce();
    await receiver.waitFor(5);
    const held = await store.query("SELECT * FROM webhook_deliveries WHERE endpoint_id = $1", [endpoint.id]);
    expect(
      held.every((row) => row.status === "pending" && row.attempts === 0 && row.locked_by !== null),
    ).toBe(true);
    // Its lease (the send's timeout, 15 s, + 5 s) passes: the next worker sends the batch again.
    clock.advance(20_001);
    expect(await worker().runOnce()).toBe(5);
    const seen = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(seen.slice(0, 5).sort()).toEqual([...ids].sort());
    expect(seen.slice(5).sort()).toEqual([...ids].sort());
    // The dead worker's records, arriving late, do not undo the other's success.
    open();
    await dyingRun;
    const rows = await store.query("SELECT * FROM webhook_deliveries WHERE endpoint_id = $1", [endpoint.id]);
    expect(rows.map((row) => row.status)).toEqual(Array(5).fill("succeeded"));
  });
});
