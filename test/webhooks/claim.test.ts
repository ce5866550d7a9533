import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { recordEvents } from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { claimDueDeliveries, type ClaimOptions } from "../../webhooks/delivery-queries.ts";
import { insertEndpoint, workerStoreKinds, type TestEndpoint } from "../helpers/webhooks.ts";

// The delivery queue's rules, judged by its one claim statement (store's claimDue): oldest due first,
// a disabled endpoint's deliveries closed, an endpoint's rate limit spread over later seconds.
describe.each(workerStoreKinds())("claiming due deliveries on $name", (kind) => {
  let store: Store;
  const now = new Date("2025-03-15T10:00:00Z");
  const claim = (options: Partial<ClaimOptions> = {}) =>
    claimDueDeliveries(store, { now, limit: 50, leaseMs: 15_000, workerId: "w1", ...options });
  const emit = async (endpoint: TestEndpoint, at: Date, count = 1) => {
    for (let i = 0; i < count; i++) {
      await store.transaction((tx) =>
        recordEvents(tx, endpoint.orgId, at, [{ type: "contact.created", object: { id: "con_1" } }]),
      );
    }
  };
  const rows = (endpoint: TestEndpoint) =>
    store.query<{
      status: string;
      next_attempt_at: Date | null;
      locked_by: string | null;
      last_error: string;
    }>("SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY next_attempt_at, id", [endpoint.id]);

  beforeAll(async () => {
    store = await kind.open();
  });
  afterEach(async () => {
    await store.query("UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'pending'");
  });
  afterAll(() => store.dispose());

  it("leases the oldest due deliveries first, up to the limit, with the endpoints they go to", async () => {
    const endpoint = await insertEndpoint(store, "https://hooks.example.com");
    await emit(endpoint, new Date(now.getTime() - 1_000));
    await emit(endpoint, new Date(now.getTime() - 3_000));
    await emit(endpoint, new Date(now.getTime() - 2_000));
    await emit(endpoint, new Date(now.getTime() + 1_000)); // not due yet
    const claimed = await claim({ limit: 2 });
    expect(
      claimed.deliveries.map((d) => d.next_attempt_at!.getTime() - now.getTime()).sort((a, b) => a - b),
    ).toEqual([-3_000, -2_000]);
    expect(claimed.deliveries.every((d) => d.locked_by === "w1")).toBe(true);
    expect(claimed.deliveries[0]!.locked_until).toEqual(new Date(now.getTime() + 15_000));
    expect([...claimed.endpoints.keys()]).toEqual([endpoint.id]);
    // Leased rows are not due again until their lease passes.
    expect((await claim({ workerId: "w2" })).deliveries).toHaveLength(1);
    expect((await claim({ workerId: "w3" })).deliveries).toHaveLength(0);
  });

  it("closes a disabled endpoint's deliveries as failed in the same claim, without leasing them", async () => {
    const endpoint = await insertEndpoint(store, "https://hooks.example.com");
    await emit(endpoint, now, 2);
    await store.query("UPDATE webhook_endpoints SET enabled = false WHERE id = $1", [endpoint.id]);
    expect((await claim()).deliveries).toHaveLength(0);
    expect(await rows(endpoint)).toEqual([
      expect.objectContaining({
        status: "failed",
        next_attempt_at: null,
        locked_by: null,
        last_error: "endpoint disabled",
      }),
      expect.objectContaining({
        status: "failed",
        next_attempt_at: null,
        locked_by: null,
        last_error: "endpoint disabled",
      }),
    ]);
  });

  it("pushes the k-th delivery over an endpoint's rate limit ⌈k / limit⌉ seconds later", async () => {
    const limited = await insertEndpoint(store, "https://hooks.example.com", { rate_limit_per_s: 2 });
    const free = await insertEndpoint(store, "https://hooks.example.com");
    await emit(limited, now, 7);
    await emit(free, now, 3);
    const claimed = await claim();
    expect(claimed.deliveries.filter((d) => d.endpoint_id === limited.id)).toHaveLength(2);
    expect(claimed.deliveries.filter((d) => d.endpoint_id === free.id)).toHaveLength(3);
    const waits = (await rows(limited))
      .filter((row) => row.locked_by === null)
      .map((row) => (row.next_attempt_at!.getTime() - now.getTime()) / 1000);
    expect(waits).toEqual([1, 1, 2, 2, 3]);
  });

  it("counts the sends in flight against the rate limit", async () => {
    const limited = await insertEndpoint(store, "https://hooks.example.com", { rate_limit_per_s: 2 });
    await emit(limited, now, 2);
    expect((await claim()).deliveries).toHaveLength(2);
    await emit(limited, now);
    expect((await claim({ workerId: "w2" })).deliveries).toHaveLength(0);
    const deferred = (await rows(limited)).filter((row) => row.locked_by === null);
    expect(deferred.map((row) => row.next_attempt_at!.getTime() - now.getTime())).toEqual([1_000]);
  });
});
