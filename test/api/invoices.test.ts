import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

describe.each(storeKinds())("invoices on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const create = (body: Record<string, unknown>) =>
    t.request("POST", "/v1/invoices", { key: org.key, body: { client: "Acme", currency: "EUR", ...body } });

  it("lists exactly the overdue invoices at request time, with days_overdue", async () => {
    const past = await create({ amount: 100, due_date: "2025-03-10" });
    const future = await create({ amount: 200, due_date: "2025-04-10" });
    const paid = await create({ amount: 50, due_date: "2025-03-01" });
    await t.request("PATCH", `/v1/invoices/${paid.body.id}`, { key: org.key, body: { status: "paid" } });

    const overdue = await t.request("GET", "/v1/invoices?status=overdue", { key: org.key });
    expect(overdue.status).toBe(200);
    expect(overdue.body.data.map((i: { id: string }) => i.id)).toEqual([past.body.id]);
    expect(overdue.body.data[0]).toMatchObject({ status: "overdue", days_overdue: 5 });
    expect(overdue.body.meta).toEqual({ total: 1, page: 1, per_page: 25 });

    t.clock.set("2025-04-12T00:00:00Z");
    const later = await t.request("GET", "/v1/invoices?status=overdue&sort=due_date", { key: org.key });
    expect(later.body.data.map((i: { id: string }) => i.id)).toEqual([past.body.id, future.body.id]);
    expect(later.body.data[1].days_overdue).toBe(2);
    t.clock.set("2025-03-15T10:00:00Z");
  });

  it("refuses an invalid transition with 409 naming both states", async () => {
    const invoice = await create({ amount: 10, due_date: "2025-05-01" });
    const paid = await t.request("PATCH", `/v1/invoices/${invoice.body.id}`, {
      key: org.key,
      body: { status: "paid" },
    });
    expect(paid.body.status).toBe("paid");
    const back = await t.request("PATCH", `/v1/invoices/${invoice.body.id}`, {
      key: org.key,
      body: { status: "open" },
    });
    expect(back.status).toBe(409);
    expect(back.body.code).toBe("invalid_state_transition");
    expect(back.body.detail).toContain("paid");
    expect(back.body.detail).toContain("open");
  });
});
