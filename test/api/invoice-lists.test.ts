import { beforeAll, describe, expect, it } from "vitest";
import { markOverdueInvoices } from "../../engines/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

interface Listed {
  id: string;
  status: string;
  due_date: string;
  created_at: string;
}

describe.each(storeKinds())("invoice lists on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-06-10T09:00:00Z");
    org = await t.newOrg();
    // Each create a second apart, so creation order is the list order.
    const create = async (due_date: string, status?: string) => {
      t.clock.advance(1000);
      const body = { client: "Acme", currency: "EUR", amount: 10, due_date, ...(status ? { status } : {}) };
      const created = await t.request("POST", "/v1/invoices", { key: org.key, body });
      expect(created.status).toBe(201);
      return created.body.id as string;
    };
    for (const due of ["2025-05-01", "2025-06-01", "2025-06-09", "2025-06-10", "2025-07-01", "2025-08-01"]) {
      await create(due);
    }
    await create("2025-05-15", "draft");
    await create("2025-09-01", "draft");
    const toPay = await create("2025-05-20");
    await t.request("PATCH", `/v1/invoices/${toPay}`, { key: org.key, body: { status: "paid" } });
    const toVoid = await create("2025-06-20");
    await t.request("PATCH", `/v1/invoices/${toVoid}`, { key: org.key, body: { status: "void" } });
  });

  const list = async (query: string) => {
    const response = await t.request("GET", `/v1/invoices?${query}`, { key: org.key });
    expect(response.status).toBe(200);
    return response.body as { data: Listed[]; meta: { total: number } };
  };

  /** Every invoice of the organization as the API shows it now, newest first. */
  const everything = async () => (await list("per_page=100")).data;

  const FILTERS = [
    "overdue",
    "open",
    "paid",
    "draft",
    "void",
    "overdue,open",
    "open,overdue,paid",
    "overdue,overdue",
  ];

  async function expectExactTotals() {
    const all = await everything();
    for (const filter of FILTERS) {
      const wanted = new Set(filter.split(","));
      const expected = all.filter((invoice) => wanted.has(invoice.status));
      const page = await list(`status=${filter}&per_page=100`);
      expect(
        page.data.map((i) => i.id),
        filter,
      ).toEqual(expected.map((i) => i.id));
      expect(page.meta.total, filter).toBe(expected.length);
    }
    const early = all.filter((i) => i.due_date < "2025-06-15" && ["open", "overdue"].includes(i.status));
    expect((await list("status=open,overdue&due_before=2025-06-15")).meta.total).toBe(early.length);
    expect((await list("")).meta.total).toBe(all.length);
  }

  it("counts each status exactly, open and overdue decided by today's date", async () => {
    const all = await everything();
    expect(all).toHaveLength(10);
    expect(all.filter((i) => i.status === "overdue").map((i) => i.due_date)).toEqual([
      "2025-06-09",
      "2025-06-01",
      "2025-05-01",
    ]);
    await expectExactTotals();
  });

  it("keeps totals exact as days pass, the overdue job runs and invoices change", async () => {
    t.clock.set("2025-07-02T00:00:01Z");
    await expectExactTotals();
    await markOverdueInvoices(t.store, t.clock.now());
    await expectExactTotals();
    const draft = (await list("status=draft")).data[0]!;
    await t.request("PATCH", `/v1/invoices/${draft.id}`, { key: org.key, body: { due_date: "2025-12-01" } });
    await t.request("DELETE", `/v1/invoices/${draft.id}`, { key: org.key });
    await expectExactTotals();
  });

  it("pages through several statuses in order, in any sort", async () => {
    for (const sort of ["-created_at", "created_at", "due_date", "-due_date"]) {
      const whole = await list(`status=overdue,open&sort=${sort}&per_page=100`);
      const paged: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const part = await list(`status=overdue,open&sort=${sort}&per_page=3&page=${page}`);
        expect(part.meta.total).toBe(whole.meta.total);
        paged.push(...part.data.map((i) => i.id));
      }
      expect(paged, sort).toEqual(whole.data.map((i) => i.id));
    }
  });

  it("falls back to counting rows when a filter is not counted", async () => {
    const all = await everything();
    const overdue = all.filter((i) => i.status === "overdue");
    expect((await list("status=overdue&q=acme")).meta.total).toBe(overdue.length);
    expect((await list("status=overdue&currency=USD")).meta.total).toBe(0);
    expect((await list("status=overdue&created_after=2000-01-01")).meta.total).toBe(overdue.length);
  });

  it("leaves no counters behind when an organization is deleted", async () => {
    const other = await t.newOrg();
    const body = { client: "Acme", currency: "EUR", amount: 1, due_date: "2025-09-09" };
    await t.request("POST", "/v1/invoices", { key: other.key, body });
    const counted = () =>
      t.store.query<{ n: number }>("SELECT count(*) AS n FROM invoice_counts WHERE org_id = $1", [other.id]);
    expect((await counted())[0]!.n).toBe(1);
    await t.store.query("DELETE FROM organizations WHERE id = $1", [other.id]);
    expect((await counted())[0]!.n).toBe(0);
  });
});
