import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBase62, silentLogger, systemClock } from "../../core/index.ts";
import {
  createApiKey,
  createOrganization,
  OPERATOR,
  OPERATOR_ACTOR,
  revokeApiKey,
  touchApiKey,
} from "../../engines/index.ts";
import {
  API_KEY_CHANGED,
  createInvalidations,
  createPostgresStore,
  FUNCTION_CHANGED,
  type Invalidations,
  type Store,
} from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";
import { startCuttableProxy } from "../helpers/proxy.ts";

/**
 * Cross-node cache invalidation (store/invalidations.ts, migration 0018): a committed change to
 * a key or a function is a message to every listener; a rolled-back one, or a write no cache
 * cares about, is none. Listeners on a shared database hear other suites' changes too: each
 * test looks for its own ids only.
 */
describe.each(storeKinds())("invalidation messages on $name", (kind) => {
  let store: Store;
  let bus: Invalidations;
  const heard: string[] = [];
  let resets = 0;

  beforeAll(async () => {
    store = await kind.open();
    bus = createInvalidations(store, silentLogger);
    const onReset = () => resets++;
    await bus.subscribe(API_KEY_CHANGED, { onMessage: ({ id }) => heard.push(`key ${id}`), onReset });
    await bus.subscribe(FUNCTION_CHANGED, {
      onMessage: ({ org_id, id }) => heard.push(`function ${org_id} ${id}`),
      onReset,
    });
  });
  afterAll(async () => {
    await bus.dispose();
    await store.dispose();
  });

  const heardOf = (id: string) => heard.filter((message) => message.includes(id));
  /** NOTIFY is asynchronous: give a message that would come the time to come. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

  it("tells of a revoked key at commit, and not of a key's use", async () => {
    const org = await createOrganization(store, { name: `invalidations-${randomBase62(8)}` });
    const key = await createApiKey(store, org.id, { kind: "read_only", name: "k" }, OPERATOR);
    await touchApiKey(store, key.id, new Date());
    await settle();
    expect(heardOf(key.id)).toEqual([]);
    await revokeApiKey(store, org.id, key.id, systemClock, OPERATOR_ACTOR);
    await expect.poll(() => heardOf(key.id)).toEqual([`key ${key.id}`]);
    // Nothing was lost: no reason to drop whole caches.
    expect(resets).toBe(0);
  });

  it("tells of a function's creation, change and deletion, once per transaction, and of no rolled-back one", async () => {
    const org = await createOrganization(store, { name: `invalidations-${randomBase62(8)}` });
    const id = `fn_${Math.random().toString(36).slice(2, 14)}`;
    const insert = `INSERT INTO functions (id, org_id, name, active_version, latest_version) VALUES ($1, $2, 'f', 1, 1)`;
    await store
      .transaction(async (tx) => {
        await tx.query(insert, [id, org.id]);
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    await settle();
    expect(heardOf(id)).toEqual([]);
    const message = `function ${org.id} ${id}`;
    await store.transaction(async (tx) => {
      await tx.query(insert, [id, org.id]);
      await tx.query("UPDATE functions SET secrets_revision = secrets_revision + 1 WHERE id = $1", [id]);
    });
    await expect.poll(() => heardOf(id)).toEqual([message]);
    await store.query("DELETE FROM functions WHERE id = $1", [id]);
    await expect.poll(() => heardOf(id)).toEqual([message, message]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("invalidation messages across a lost connection", () => {
  it("calls onReset once listening again, and hears messages after it", async () => {
    const proxy = await startCuttableProxy(new URL(process.env.TEST_DATABASE_URL!));
    try {
      // Disposed in reverse: the bus, then both stores, then (finally) the proxy.
      await using writer = createPostgresStore({ url: process.env.TEST_DATABASE_URL!, poolSize: 1 });
      await using store = createPostgresStore({ url: proxy.url, poolSize: 1, connectTimeoutS: 2 });
      await using bus = createInvalidations(store, silentLogger);
      const heard: string[] = [];
      let resets = 0;
      await bus.subscribe(API_KEY_CHANGED, {
        onMessage: ({ id }) => heard.push(id),
        onReset: () => resets++,
      });
      proxy.cut();
      await expect.poll(() => resets, { timeout: 10_000 }).toBe(1);
      const org = await createOrganization(writer, { name: `invalidations-${randomBase62(8)}` });
      const key = await createApiKey(writer, org.id, { kind: "read_only", name: "k" }, OPERATOR);
      await revokeApiKey(writer, org.id, key.id, systemClock, OPERATOR_ACTOR);
      await expect.poll(() => heard.includes(key.id), { timeout: 10_000 }).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});
