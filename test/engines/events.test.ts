import { beforeAll, describe, expect, it } from "vitest";
import { markOverdueInvoices } from "../../engines/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

describe.each(storeKinds())("events outbox on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const events = async (type?: string) => {
    const query = type ? `?per_page=100&type=${type}` : "?per_page=100";
    const response = await t.request("GET", `/v1/events${query}`, { key: org.key });
    return response.body.data as Array<{
      type: string;
      data: { object: { id: string }; previous_attributes?: object };
    }>;
  };
  const countEvents = async () =>
    (await t.store.query<{ n: number }>("SELECT count(*) AS n FROM events WHERE org_id = $1", [org.id]))[0]!
      .n;

  it("records created, updated (with previous_attributes) and deleted with the object", async () => {
    const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } });
    await t.request("PATCH", `/v1/contacts/${contact.body.id}`, { key: org.key, body: { company: "Acme" } });
    await t.request("DELETE", `/v1/contacts/${contact.body.id}`, { key: org.key });
    const mine = (await events("contact.*")).filter((e) => e.data.object.id === contact.body.id);
    expect(mine.map((e) => e.type)).toEqual(["contact.deleted", "contact.updated", "contact.created"]);
    expect(mine[1]!.data.previous_attributes).toEqual({ company: null });
  });

  it("records domain events in the same transaction as the status change", async () => {
    const invoice = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Acme", currency: "EUR", amount: 10, due_date: "2025-04-01", status: "draft" },
    });
    await t.request("PATCH", `/v1/invoices/${invoice.body.id}`, { key: org.key, body: { status: "open" } });
    await t.request("PATCH", `/v1/invoices/${invoice.body.id}`, { key: org.key, body: { status: "paid" } });
    const types = (await events("invoice.*"))
      .filter((e) => e.data.object.id === invoice.body.id)
      .map((e) => e.type);
    expect(types).toEqual([
      "invoice.paid",
      "invoice.updated",
      "invoice.sent",
      "invoice.updated",
      "invoice.created",
    ]);
  });

  it("leaves no event behind a refused or rolled-back change", async () => {
    const before = await countEvents();
    const invoice = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Acme", currency: "EUR", amount: 10, due_date: "2025-04-01" },
    });
    const afterCreate = await countEvents();
    expect(afterCreate).toBe(before + 2); // invoice.created + invoice.sent
    await t.request("PATCH", `/v1/invoices/${invoice.body.id}`, { key: org.key, body: { status: "void" } });
    const refused = await t.request("PATCH", `/v1/invoices/${invoice.body.id}`, {
      key: org.key,
      body: { status: "paid" },
    });
    expect(refused.status).toBe(409);
    const dangling = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Acme", currency: "EUR", amount: 1, due_date: "2025-04-01", contact_id: "con_nope" },
    });
    expect(dangling.status).toBe(422);
    expect(await countEvents()).toBe(afterCreate + 2); // the void only: updated + voided
  });

  it("emits invoice.overdue once, when the scheduler records a passed due date", async () => {
    const invoice = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: { client: "Late Ltd", currency: "EUR", amount: 99, due_date: "2025-03-20" },
    });
    t.clock.set("2025-03-25T00:00:00Z");
    expect(await markOverdueInvoices(t.store, t.clock.now())).toBeGreaterThanOrEqual(1);
    await markOverdueInvoices(t.store, t.clock.now());
    const overdue = (await events("invoice.overdue")).filter((e) => e.data.object.id === invoice.body.id);
    expect(overdue).toHaveLength(1);
    const read = await t.request("GET", `/v1/invoices/${invoice.body.id}`, { key: org.key });
    expect(read.body).toMatchObject({ status: "overdue", days_overdue: 5 });
    const paid = await t.request("PATCH", `/v1/invoices/${invoice.body.id}`, {
      key: org.key,
      body: { status: "paid" },
    });
    expect(paid.body.status).toBe("paid");
    t.clock.set("2025-03-15T10:00:00Z");
  });

  it("lists with filters, refuses unknown types, and keeps organizations apart", async () => {
    const unknown = await t.request("GET", "/v1/events?type=invoice.exploded", { key: org.key });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].param).toBe("type");
    const other = await t.newOrg();
    const theirs = await t.request("GET", "/v1/events?per_page=100", { key: other.key });
    expect(theirs.body.data.every((e: { type: string }) => e.type === "api_key.created")).toBe(true);
    const [newest] = (await t.request("GET", "/v1/events?per_page=1", { key: org.key })).body.data;
    const foreign = await t.request("GET", `/v1/events/${newest.id}`, { key: other.key });
    expect(foreign.status).toBe(404);
  });

  it("serves a catalog of event types, each with a JSON Schema", async () => {
    const catalog = await t.request("GET", "/v1/event_types", { key: org.key });
    const types = catalog.body.data.map((entry: { type: string }) => entry.type);
    expect(types).toEqual(
      expect.arrayContaining(["invoice.paid", "invoice.overdue", "contact.created", "api_key.revoked"]),
    );
    expect(types.length).toBeGreaterThanOrEqual(40);
    // Each named `<object>.<happening>`, none twice.
    expect(new Set(types).size).toBe(types.length);
    for (const type of types) expect(type).toMatch(/^[a-z_]+\.[a-z_]+$/);
    const paid = catalog.body.data.find((entry: { type: string }) => entry.type === "invoice.paid");
    expect(paid.schema.properties.type.const).toBe("invoice.paid");
  });
});
