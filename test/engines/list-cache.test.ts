import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../../core/index.ts";
import {
  createListCache,
  createOrganization,
  createResourceServices,
  RESOURCES,
  type AnyResourceService,
  type ListCache,
  type ListQuery,
} from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";

const query = (filters: Record<string, string[]> = {}, page = 1): ListQuery => ({
  page,
  perPage: 25,
  sort: { field: "created_at", descending: true },
  filters,
});

/** Two API nodes over one store, each with its own cache, and a node that caches nothing. */
describe.each(storeKinds())("list cache on $name", (kind) => {
  let store: Store;
  const clock = new FakeClock("2025-03-15T10:00:00Z");
  let cacheA: ListCache;
  let nodeA: Map<string, AnyResourceService>;
  let nodeB: Map<string, AnyResourceService>;
  let uncached: Map<string, AnyResourceService>;
  let org: string;
  let otherOrg: string;

  const listA = async (name: string, q = query()) =>
    JSON.parse(await nodeA.get(name)!.listJson(org, q)) as {
      data: Array<Record<string, unknown>>;
      meta: object;
    };
  const invoice = (service: Map<string, AnyResourceService>, orgId: string, due: string, amount = "100") => {
    clock.advance(1000); // the newest invoice is first
    return service
      .get("invoices")!
      .create(orgId, { client: "Acme", amount, currency: "EUR", due_date: due }) as Promise<{
      id: string;
    }>;
  };

  beforeAll(async () => {
    store = await kind.open();
    cacheA = createListCache(1024 * 1024)!;
    nodeA = createResourceServices(store, clock, cacheA);
    nodeB = createResourceServices(store, clock, createListCache(1024 * 1024));
    uncached = createResourceServices(store, clock);
    const unique = Date.now().toString(36);
    org = (await createOrganization(store, { name: `list-cache-${unique}` })).id;
    otherOrg = (await createOrganization(store, { name: `list-cache-other-${unique}` })).id;
  });
  afterAll(async () => store.dispose());

  it("serves the same body as an uncached read, from memory while nothing changed", async () => {
    await invoice(nodeA, org, "2025-03-01");
    await invoice(nodeA, org, "2025-04-01");
    const hits = cacheA.stats.hits;
    const first = await nodeA.get("invoices")!.listJson(org, query());
    const again = await nodeA.get("invoices")!.listJson(org, query());
    expect(again).toBe(first);
    expect(cacheA.stats.hits).toBe(hits + 1);
    expect(JSON.parse(first)).toEqual(await uncached.get("invoices")!.list(org, query()));
    expect(JSON.parse(first)).toEqual(JSON.parse(await uncached.get("invoices")!.listJson(org, query())));
  });

  it("reads again after a write through this node, another node, or plain SQL", async () => {
    const before = (await listA("invoices")).meta;
    const created = await invoice(nodeA, org, "2025-05-01");
    const afterCreate = await listA("invoices");
    expect(afterCreate.data[0]!.id).toBe(created.id);
    expect(afterCreate.meta).toEqual({ ...before, total: (before as { total: number }).total + 1 });

    await nodeB.get("invoices")!.update(org, created.id, { description: "changed on node B" });
    expect((await listA("invoices")).data[0]!.description).toBe("changed on node B");

    await store.query("UPDATE invoices SET client = 'Changed by hand' WHERE id = $1", [created.id]);
    expect((await listA("invoices")).data[0]!.client).toBe("Changed by hand");

    await store.query("DELETE FROM invoices WHERE id = $1", [created.id]);
    expect((await listA("invoices")).data.map((row) => row.id)).not.toContain(created.id);
  });

  it("keeps a page when only another organization or another table changed", async () => {
    await listA("invoices");
    const hits = cacheA.stats.hits;
    await invoice(nodeB, otherOrg, "2025-03-01");
    await nodeB.get("contacts")!.create(org, { name: "Ada Lovelace", email: "ada@example.com" });
    await listA("invoices");
    expect(cacheA.stats.hits).toBe(hits + 1);
    expect((await listA("contacts")).data.map((row) => row.name)).toContain("Ada Lovelace");
  });

  it("derives statuses for the day of the request, not of the cached read", async () => {
    const due = await invoice(nodeA, org, "2025-03-15");
    const overdue = () => listA("invoices", query({ status: ["overdue"] }));
    expect((await overdue()).data.map((row) => row.id)).not.toContain(due.id);
    clock.set("2025-03-17T00:00:01Z");
    const later = (await overdue()).data.find((row) => row.id === due.id);
    expect(later).toMatchObject({ status: "overdue", days_overdue: 2 });
    clock.set("2025-03-15T11:00:00Z");
  });

  it("keeps one page per query: filters, sort and paging are part of the key", async () => {
    const euro = await listA("invoices", query({ currency: ["EUR"] }));
    const usd = await listA("invoices", query({ currency: ["USD"] }));
    expect(euro.data.length).toBeGreaterThan(0);
    expect(usd.data).toEqual([]);
    const second = await listA("invoices", query({}, 2));
    expect(second.data).toEqual([]);
    expect(
      (await listA("invoices", { ...query(), sort: { field: "due_date", descending: false } })).data[0],
    ).toEqual(
      (
        await uncached
          .get("invoices")!
          .list(org, { ...query(), sort: { field: "due_date", descending: false } })
      ).data[0],
    );
  });

  it("versions every resource table (a new resource's migration must add the triggers)", async () => {
    const rows = await store.query<{ table: string; n: number }>(
      `SELECT c.relname AS table, count(*)::int AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE t.tgname LIKE 'list_versions_%' GROUP BY c.relname`,
    );
    const triggers = Object.fromEntries(rows.map((row) => [row.table, row.n]));
    for (const definition of RESOURCES)
      expect(triggers[definition.table ?? definition.name], definition.name).toBe(4);
  });

  if (kind.name === "pglite") {
    // The PostgreSQL database is shared by suites running in parallel: truncate only the embedded one.
    it("reads again after a TRUNCATE", async () => {
      await nodeA.get("products")!.create(org, { name: "Widget", price: "5", currency: "EUR" });
      expect((await listA("products")).data).toHaveLength(1);
      await store.query("TRUNCATE products");
      expect((await listA("products")).data).toEqual([]);
    });
  }
});

describe("list cache memory", () => {
  const page = (version: bigint, body: string) => () => Promise.resolve({ version, body });

  it("drops the least recently used pages beyond its budget", async () => {
    const body = "x".repeat(1000);
    const cache = createListCache(3 * 2 * (1000 + 1))!;
    for (const key of ["a", "b", "c"]) await cache.fill(key, 1n, page(1n, body));
    expect(cache.lookup("a", 1n)).toBe(body);
    await cache.fill("d", 1n, page(1n, body));
    expect(cache.lookup("b", 1n)).toBeUndefined();
    expect(["a", "c", "d"].map((key) => cache.lookup(key, 1n)?.length)).toEqual([1000, 1000, 1000]);
    expect(cache.stats).toMatchObject({ bytes: 3 * 2 * 1001, pages: 3 });
    await cache.fill("huge", 1n, page(1n, "y".repeat(10_000)));
    expect(cache.lookup("huge", 1n)).toBeUndefined();
  });

  it("serves a page only at the version it was read at", async () => {
    const cache = createListCache(1 << 20)!;
    await cache.fill("k", 5n, page(5n, "five"));
    expect(cache.lookup("k", 5n)).toBe("five");
    expect(cache.lookup("k", 6n)).toBeUndefined();
  });

  it("never replaces a page with one read from an older snapshot", async () => {
    const cache = createListCache(1 << 20)!;
    await cache.fill("k", 5n, page(5n, "new"));
    await cache.fill("k", 4n, page(4n, "old"));
    expect(cache.lookup("k", 5n)).toBe("new");
  });

  it("lets concurrent requests share a read that began at their version or later, never an older one", async () => {
    const cache = createListCache(1 << 20)!;
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = (version: bigint) => async () => {
      reads++;
      await gate;
      return { version, body: `v${version}` };
    };
    const first = cache.fill("k", 7n, slow(7n));
    const joined = cache.fill("k", 7n, slow(7n));
    const older = cache.fill("k", 6n, slow(6n));
    const newer = cache.fill("k", 8n, slow(8n));
    release();
    expect(await Promise.all([first, joined, older, newer])).toEqual(["v7", "v7", "v7", "v8"]);
    expect(reads).toBe(2);
    expect(cache.stats).toMatchObject({ misses: 2, joined: 2 });
    expect(cache.lookup("k", 8n)).toBe("v8");
  });

  it("is off at 0 bytes", () => {
    expect(createListCache(0)).toBeUndefined();
  });
});
