import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

interface EventRow {
  type: string;
  data: { object: { id: string }; previous_attributes?: Record<string, unknown> };
}

describe.each(storeKinds())("payments on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const invoice = async (body: Record<string, unknown> = {}) => {
    const created = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Acme", currency: "EUR", amount: 100, due_date: "2025-04-30", ...body },
    });
    expect(created.status, created.text).toBe(201);
    return created.body as { id: string };
  };
  const pay = (invoiceId: string, amount: unknown, extra: Record<string, unknown> = {}) =>
    t.request("POST", "/v1/payments", {
      key: org.key,
      body: { invoice_id: invoiceId, amount, method: "bank_transfer", ...extra },
    });
  const getInvoice = async (id: string) =>
    (await t.request("GET", `/v1/invoices/${id}`, { key: org.key })).body as Record<string, unknown>;
  const eventsAbout = async (id: string) => {
    const response = await t.request("GET", "/v1/events?per_page=100", { key: org.key });
    return (response.body.data as EventRow[]).filter((e) => e.data.object.id === id).map((e) => e.type);
  };
  const paymentCount = async (invoiceId: string) =>
    (
      await t.store.query<{ n: number }>(
        "SELECT count(*) AS n FROM payments WHERE org_id = $1 AND invoice_id = $2",
        [org.id, invoiceId],
      )
    )[0]!.n;

  it("records a partial payment: the invoice stays open with its balance, and says so in events", async () => {
    const inv = await invoice({ amount: "100.10" });
    const payment = await pay(inv.id, "40.05");
    expect(payment.status, payment.text).toBe(201);
    expect(payment.body).toMatchObject({
      object: "payment",
      invoice_id: inv.id,
      amount: 40.05,
      currency: "EUR",
      method: "bank_transfer",
      received_at: "2025-03-15T10:00:00Z",
    });
    expect(await getInvoice(inv.id)).toMatchObject({
      status: "open",
      amount_paid: 40.05,
      amount_remaining: 60.05,
    });
    expect((await eventsAbout(inv.id)).sort()).toEqual([
      "invoice.created",
      "invoice.partially_paid",
      "invoice.sent",
      "invoice.updated",
    ]);
    expect(await eventsAbout(payment.body.id)).toEqual(["payment.created"]);
  });

  it("marks the invoice paid when payments cover it, exactly (0.1 + 0.2 pays 0.3)", async () => {
    const inv = await invoice({ amount: "0.3" });
    expect((await pay(inv.id, 0.1)).status).toBe(201);
    expect((await getInvoice(inv.id)).status).toBe("open");
    expect((await pay(inv.id, 0.2)).status).toBe(201);
    expect(await getInvoice(inv.id)).toMatchObject({
      status: "paid",
      amount_paid: 0.3,
      amount_remaining: 0,
      paid_at: "2025-03-15T10:00:00Z",
    });
    const response = await t.request("GET", "/v1/events?type=invoice.updated,invoice.paid&per_page=100", {
      key: org.key,
    });
    const mine = (response.body.data as EventRow[]).filter((e) => e.data.object.id === inv.id);
    expect(mine.map((e) => e.type)).toContain("invoice.paid");
    const settled = mine.find((e) => e.data.previous_attributes?.status === "open");
    expect(settled?.data.previous_attributes).toMatchObject({
      status: "open",
      amount_paid: 0.1,
      paid_at: null,
    });
  });

  it("takes payments on an overdue invoice", async () => {
    const inv = await invoice({ due_date: "2025-03-01" });
    expect((await getInvoice(inv.id)).status).toBe("overdue");
    expect((await pay(inv.id, 100)).status).toBe(201);
    expect((await getInvoice(inv.id)).status).toBe("paid");
  });

  it.each([
    ["draft", { status: "draft" }, undefined],
    ["paid", {}, "paid"],
    ["void", {}, "void"],
  ])("refuses a payment on a %s invoice with 409 and stores nothing", async (status, body, patchTo) => {
    const inv = await invoice(body);
    if (patchTo)
      await t.request("PATCH", `/v1/invoices/${inv.id}`, { key: org.key, body: { status: patchTo } });
    const before = await getInvoice(inv.id);
    const refused = await pay(inv.id, 10);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.code).toBe("invalid_state_transition");
    expect(refused.body.detail).toContain(status);
    expect(await paymentCount(inv.id)).toBe(0);
    expect(await getInvoice(inv.id)).toEqual(before);
  });

  it("refuses a payment above the remaining balance with 422 naming amount, and changes nothing", async () => {
    const inv = await invoice({ amount: 100 });
    await pay(inv.id, 60);
    const refused = await pay(inv.id, "40.0001");
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ param: "amount", code: "amount_exceeds_balance" }),
    ]);
    expect(await paymentCount(inv.id)).toBe(1);
    expect((await getInvoice(inv.id)).amount_paid).toBe(60);
  });

  it("takes the invoice's currency by default and refuses another", async () => {
    const inv = await invoice({ currency: "JPY", amount: 5000 });
    expect((await pay(inv.id, 1000)).body.currency).toBe("JPY");
    const refused = await pay(inv.id, 1000, { currency: "EUR" });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ param: "currency", code: "currency_mismatch" });
  });

  it("restores the balance when a payment of an open invoice is deleted", async () => {
    const inv = await invoice({ amount: 100 });
    const payment = await pay(inv.id, 30);
    const deleted = await t.request("DELETE", `/v1/payments/${payment.body.id}`, { key: org.key });
    expect(deleted.status).toBe(204);
    expect(await getInvoice(inv.id)).toMatchObject({ status: "open", amount_paid: 0, amount_remaining: 100 });
    expect(await eventsAbout(payment.body.id)).toEqual(["payment.deleted", "payment.created"]);
  });

  it("keeps the payments of a paid invoice: deleting one is a 409", async () => {
    const inv = await invoice({ amount: 100 });
    const payment = await pay(inv.id, 100);
    const refused = await t.request("DELETE", `/v1/payments/${payment.body.id}`, { key: org.key });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("paid");
    expect((await t.request("GET", `/v1/payments/${payment.body.id}`, { key: org.key })).status).toBe(200);
  });

  it("changes only a payment's bookkeeping fields", async () => {
    const inv = await invoice();
    const payment = await pay(inv.id, 10);
    const patched = await t.request("PATCH", `/v1/payments/${payment.body.id}`, {
      key: org.key,
      body: { method: "card", reference: "ch_123", received_at: "2025-03-14T09:00:00+01:00" },
    });
    expect(patched.body).toMatchObject({
      method: "card",
      reference: "ch_123",
      received_at: "2025-03-14T08:00:00Z",
    });
    const money = await t.request("PATCH", `/v1/payments/${payment.body.id}`, {
      key: org.key,
      body: { amount: 20 },
    });
    expect(money.status).toBe(422);
  });

  it("refuses to lower an invoice's amount below what has been paid", async () => {
    const inv = await invoice({ amount: 100 });
    await pay(inv.id, 80);
    const refused = await t.request("PATCH", `/v1/invoices/${inv.id}`, {
      key: org.key,
      body: { amount: 50 },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ param: "amount", code: "amount_below_paid" });
    const currency = await t.request("PATCH", `/v1/invoices/${inv.id}`, {
      key: org.key,
      body: { currency: "USD" },
    });
    expect(currency.status).toBe(422);
  });

  it("settles an invoice once under concurrent payments that each cover it", async () => {
    const inv = await invoice({ amount: 100 });
    const results = await Promise.all([pay(inv.id, 100), pay(inv.id, 100), pay(inv.id, 100)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(201);
    expect(statuses.slice(1).every((s) => s === 409 || s === 422)).toBe(true);
    expect(await paymentCount(inv.id)).toBe(1);
    expect((await getInvoice(inv.id)).amount_paid).toBe(100);
  });

  it("filters by received_at bounds and refuses a malformed one with 400 naming it", async () => {
    const inv = await invoice();
    await pay(inv.id, 1, { received_at: "2025-01-10T12:00:00Z" });
    await pay(inv.id, 2, { received_at: "2025-02-10T12:00:00Z" });
    const list = (query: string) =>
      t.request("GET", `/v1/payments?invoice_id=${inv.id}&${query}`, { key: org.key });
    const after = await list("received_after=2025-02-01");
    expect(after.body.data.map((p: { amount: number }) => p.amount)).toEqual([2]);
    const before = await list(`received_before=${encodeURIComponent("2025-01-10T13:00:00+01:00")}`);
    expect(before.body.data.map((p: { amount: number }) => p.amount)).toEqual([]);
    for (const bad of ["yesterday", "2025-02-30", "2025-01-01,2025-02-01"]) {
      const refused = await list(`received_after=${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.errors[0].param).toBe("received_after");
    }
  });

  it("filters payments by invoice and by method", async () => {
    const a = await invoice();
    const b = await invoice();
    await pay(a.id, 1, { method: "cash" });
    await pay(a.id, 2, { method: "card" });
    await pay(b.id, 3, { method: "cash" });
    const ofA = await t.request("GET", `/v1/payments?invoice_id=${a.id}`, { key: org.key });
    expect(ofA.body.meta.total).toBe(2);
    const cashOfA = await t.request("GET", `/v1/payments?invoice_id=${a.id}&method=cash`, { key: org.key });
    expect(cashOfA.body.data.map((p: { amount: number }) => p.amount)).toEqual([1]);
  });
});
