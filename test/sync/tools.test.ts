import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock, isoDate } from "../../core/index.ts";
import { createOrganization, createResourceServices, seedDemo } from "../../engines/index.ts";
import {
  createToolCatalog,
  money,
  prepareWriteTool,
  runReadTool,
  toolAllowed,
  toolJsonSchema,
  type ToolContext,
} from "../../sync/index.ts";
import { nearestNames } from "../../sync/tools/lookup.ts";
import type { Store } from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * SYNC's tool catalog against the demo data: every figure a tool returns equals what SQL over
 * the same rows says, filters are checked as the REST API checks them, names resolve through
 * typos, scopes are enforced per call, and writes are only described until applied.
 */
describe.each(storeKinds())("SYNC tools on $name", (kind) => {
  let store: Store;
  let ctx: ToolContext;
  const clock = new FakeClock("2026-03-15T10:00:00Z");
  const catalog = createToolCatalog();
  const tool = (name: string) => catalog.get(name)!;
  const read = <R>(name: string, args: unknown, scopes: string[] = ["*"]) =>
    runReadTool(tool(name), args, { ...ctx, scopes }) as Promise<{ result: R; sources: unknown[] }>;
  const sql = async <T extends object>(text: string) => store.query<T>(text, [ctx.orgId]);

  beforeAll(async () => {
    store = await kind.open();
    const org = await createOrganization(store, { name: `sync-tools-${Date.now()}`, plan: "free" });
    await seedDemo(store, clock, org.id);
    const now = clock.now();
    ctx = {
      orgId: org.id,
      scopes: ["*"],
      now,
      today: isoDate(now),
      store,
      services: createResourceServices(store, clock),
    };
  });
  afterAll(() => store.dispose());

  it("counts overdue invoices and sums what they still owe per currency, as SQL does", async () => {
    const today = ctx.today;
    const expected = await sql<{ currency: string; owed: string; n: number }>(
      `SELECT currency, sum(amount - amount_paid)::text AS owed, count(*)::int AS n FROM invoices
       WHERE org_id = $1 AND (status = 'overdue' OR (status = 'open' AND due_date < '${today}'))
       GROUP BY currency ORDER BY currency`,
    );
    const due = await read<{
      total: number;
      outstanding: Array<{ currency: string; amount: string; count: number }>;
    }>("invoices_due", {});
    expect(due.result.total).toBe(expected.reduce((sum, row) => sum + row.n, 0));
    expect(due.result.outstanding.map((row) => [row.currency, row.amount, row.count])).toEqual(
      expected.map((row) => [row.currency.trim(), row.owed, row.n]),
    );
    expect(due.sources.length).toBe(Math.min(25, due.result.total));
  });

  it("groups counts and sums by status, stage, month and client", async () => {
    const stages = await sql<{ stage: string; n: number; value: string }>(
      "SELECT stage, count(*)::int AS n, sum(value)::text AS value FROM deals WHERE org_id = $1 GROUP BY stage ORDER BY stage",
    );
    const pipeline = await read<{ stages: Array<{ key: string; amount: string; count: number }> }>(
      "pipeline_by_stage",
      {},
    );
    expect(pipeline.result.stages.map((row) => [row.key, row.count, row.amount])).toEqual(
      stages.map((row) => [row.stage, row.n, row.value]),
    );
    const statuses = await sql<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM candidates WHERE org_id = $1 GROUP BY status ORDER BY status",
    );
    const counted = await read<{ statuses: Array<{ key: string; count: number }> }>(
      "candidates_by_status",
      {},
    );
    expect(counted.result.statuses).toEqual(statuses.map((row) => ({ key: row.status, count: row.n })));
    const byClient = await read<{ totals: Array<{ key: string; amount: string }> }>("sum_amounts", {
      resource: "invoices",
      group_by: "client",
      filters: { status: "paid" },
    });
    const paid = await sql<{ client: string; total: string }>(
      "SELECT client, sum(amount)::text AS total FROM invoices WHERE org_id = $1 AND status = 'paid' GROUP BY client ORDER BY client",
    );
    expect(byClient.result.totals.map((row) => [row.key, row.amount])).toEqual(
      paid.map((row) => [row.client, row.total]),
    );
  });

  it("refuses unknown filters, enum values, group-bys and sorts with a message a model can act on", async () => {
    await expect(read("list_records", { resource: "invoices", filters: { colour: "red" } })).rejects.toThrow(
      /invoices has no filter 'colour' \(filters: status/,
    );
    await expect(read("list_records", { resource: "invoices", filters: { status: "late" } })).rejects.toThrow(
      /'late' is not a status of invoices \(one of: draft, open, overdue, paid, void\)/,
    );
    await expect(read("count_records", { resource: "contacts", group_by: "stage" })).rejects.toThrow(
      /contacts cannot be grouped by 'stage'/,
    );
    await expect(read("list_records", { resource: "deals", sort: "-colour" })).rejects.toThrow(
      /cannot be sorted by 'colour'/,
    );
    await expect(read("list_records", { resource: "nope" })).rejects.toThrow(/list_records: resource/);
  });

  it("finds a record by number or by a name with typos", async () => {
    const [invoice] = await sql<{ id: string; number: string; client: string }>(
      "SELECT id, number, client FROM invoices WHERE org_id = $1 ORDER BY number LIMIT 1",
    );
    const byNumber = await read<{ record: { id: string } }>("get_record", {
      resource: "invoices",
      number: invoice!.number.toLowerCase(),
    });
    expect(byNumber.result.record.id).toBe(invoice!.id);
    const [contact] = await sql<{ id: string; name: string }>(
      "SELECT id, name FROM contacts WHERE org_id = $1 ORDER BY name LIMIT 1",
    );
    const typo =
      contact!.name.slice(0, 2) +
      contact!.name.slice(3, 4) +
      contact!.name.slice(2, 3) +
      contact!.name.slice(4);
    const found = await read<{ record: { name: string } }>("get_record", {
      resource: "contacts",
      name: typo,
    });
    expect(found.result.record.name.toLowerCase()).toBe(contact!.name.toLowerCase());
    await expect(read("get_record", { resource: "contacts", name: "Zzyzx Qwertyuiop" })).rejects.toThrow(
      /No contacts named/,
    );
    expect(nearestNames("Kestral Robotcs", ["Kestrel Robotics", "Helios Energy"])).toEqual([
      "Kestrel Robotics",
    ]);
  });

  it("checks each call against the caller's scopes", async () => {
    await expect(read("list_records", { resource: "invoices" }, ["growth:read"])).rejects.toThrow(
      /needs finance:read/,
    );
    const contacts = await read<{ total: number }>("count_records", { resource: "contacts" }, [
      "growth:read",
    ]);
    expect(contacts.result.total).toBeGreaterThan(0);
    const searched = await read<{ unreadable: string[] }>("search", { query: "a" }, ["growth:read"]);
    expect(searched.result.unreadable).toEqual(["invoices", "products", "payments", "candidates", "skills"]);
    await expect(read("latest_snapshot", {}, ["finance:read", "growth:read"])).rejects.toThrow(/talent:read/);
    expect(toolAllowed(tool("mark_invoice_paid"), ["*:read"])).toBe(false);
    expect(toolAllowed(tool("create_record"), ["growth:write"])).toBe(true);
    await expect(
      prepareWriteTool(
        tool("create_record"),
        { resource: "invoices", fields: {} },
        { ...ctx, scopes: ["growth:write"] },
      ),
    ).rejects.toThrow(/needs finance:write/);
  });

  it("describes a write in words and changes nothing until it is applied", async () => {
    const [invoice] = await sql<{
      id: string;
      number: string;
      client: string;
      amount: string;
      currency: string;
    }>(
      "SELECT id, number, client, amount::text, currency FROM invoices WHERE org_id = $1 AND status = 'open' LIMIT 1",
    );
    const prepared = await prepareWriteTool(tool("mark_invoice_paid"), { invoice: invoice!.number }, ctx);
    expect(prepared.preview).toBe(
      `Mark ${invoice!.number} (${invoice!.client}, ${money(invoice!.amount, invoice!.currency.trim())}) as paid`,
    );
    expect(prepared.arguments).toEqual({ invoice: invoice!.id });
    const [still] = await sql<{ status: string }>(
      `SELECT status FROM invoices WHERE org_id = $1 AND id = '${invoice!.id}'`,
    );
    expect(still!.status).toBe("open");
    await expect(
      prepareWriteTool(tool("create_record"), { resource: "contacts", fields: { email: "x" } }, ctx),
    ).rejects.toThrow(/contacts create: name/);
    const [deal] = await sql<{ id: string }>(
      "SELECT id FROM deals WHERE org_id = $1 AND stage = 'won' LIMIT 1",
    );
    await expect(prepareWriteTool(tool("move_deal"), { id: deal!.id, stage: "lead" }, ctx)).rejects.toThrow(
      /Deal is won; it cannot become lead/,
    );
    await expect(
      prepareWriteTool(
        tool("record_payment"),
        { invoice: invoice!.number, amount: Number(invoice!.amount) + 1 },
        ctx,
      ),
    ).rejects.toThrow(/more than the .* still owed/);
    const [paid] = await sql<{ number: string }>(
      "SELECT number FROM invoices WHERE org_id = $1 AND status = 'paid' LIMIT 1",
    );
    await expect(prepareWriteTool(tool("void_invoice"), { invoice: paid!.number }, ctx)).rejects.toThrow(
      /is paid/,
    );
  });

  it("gives every tool a JSON Schema a model can call", () => {
    for (const entry of catalog.tools) {
      const schema = toolJsonSchema(entry);
      expect(schema.type, entry.name).toBe("object");
      expect(schema.$schema).toBeUndefined();
    }
    expect(money("1234567.5", "EUR")).toBe("1,234,567.50 EUR");
    expect(money("-0.125", "USD")).toBe("-0.125 USD");
    expect(money(300, "EUR")).toBe("300.00 EUR");
  });
});
