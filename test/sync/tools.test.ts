import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError, FakeClock, isoDate } from "../../core/index.ts";
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
import { FIELDS } from "../../sync/tools/query.ts";
import { engineOf } from "../../sync/tools/records.ts";
import type { ResourceName } from "../../sync/tools/resources.ts";
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

  it("ranks clients by what they paid on the invoices issued in a window (top_clients)", async () => {
    const expected = await sql<{ client: string; currency: string; revenue: string }>(
      `SELECT client, trim(currency) AS currency, sum(amount_paid)::text AS revenue FROM invoices
        WHERE org_id = $1 AND status <> 'void' AND issued_at >= '2026-02-01' AND issued_at < '2026-03-01'
        GROUP BY client, currency HAVING sum(amount_paid) > 0 ORDER BY sum(amount_paid) DESC, client LIMIT 25`,
    );
    const top = await read<{ clients: Array<{ client: string; currency: string; revenue: string }> }>(
      "top_clients",
      { limit: 25, since: "2026-02-01", until: "2026-03-01" },
    );
    expect(top.result.clients.map((row) => [row.client, row.currency, row.revenue])).toEqual(
      expected.map((row) => [row.client, row.currency, row.revenue]),
    );
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

  describe("query_records", () => {
    interface QueryValue {
      key?: string | null;
      currency?: string;
      value: string | null;
      count: number;
      matched?: number;
    }
    interface Queried {
      mode: "records" | "aggregate" | "ratio";
      total: number;
      records: Array<Record<string, unknown> & { id: string }>;
      values: QueryValue[];
    }
    const query = async (args: Record<string, unknown>, scopes?: string[]) =>
      (await read<Queried>("query_records", args, scopes)).result;
    const rows = <T extends object>(text: string, params: unknown[] = []) =>
      store.query<T>(text, [ctx.orgId, ...params]);
    const ids = (records: Array<{ id: string }>) => records.map((record) => record.id);
    let otherOrg: string;

    beforeAll(async () => {
      const service = (name: string) => ctx.services.get(name)!;
      // A contact without a company (the demo gives every contact one), invoices in a second
      // currency (one of them past due), and payments spread over three months, their edges included.
      await service("contacts").create(ctx.orgId, { name: "Nadia Nocompany", email: "nadia@example.com" });
      const usd = [];
      for (const [amount, due] of [
        ["120.50", "2026-04-30"],
        ["980.00", "2026-02-01"],
        ["455.25", "2026-05-10"],
      ] as const) {
        usd.push(
          await service("invoices").create(ctx.orgId, {
            client: "Union Pacific Freight",
            currency: "USD",
            amount,
            due_date: due,
            status: "open",
          }),
        );
      }
      await service("payments").create(ctx.orgId, {
        invoice_id: usd[0].id,
        amount: "100.00",
        method: "card",
        received_at: "2026-02-10T08:00:00Z",
      });
      const payments = await rows<{ id: string }>(
        "SELECT id FROM payments WHERE org_id = $1 AND currency <> 'USD' ORDER BY id",
      );
      const received = [
        "2026-01-20T09:30:00Z",
        "2026-02-01T00:00:00Z",
        "2026-02-14T16:00:00Z",
        "2026-02-28T23:59:59Z",
        "2026-03-01T00:00:00Z",
      ];
      for (const [i, at] of received.entries()) {
        if (payments[i]) await service("payments").update(ctx.orgId, payments[i].id, { received_at: at });
      }
      // Another organization's records, larger than anything of this one's.
      const other = await createOrganization(store, { name: `sync-tools-other-${Date.now()}`, plan: "free" });
      otherOrg = other.id;
      await service("invoices").create(otherOrg, {
        client: "Elsewhere Ltd",
        currency: "EUR",
        amount: "987654.32",
        due_date: "2026-01-10",
        status: "open",
      });
      await service("deals").create(otherOrg, {
        title: "Elsewhere deal",
        value: "987654.32",
        currency: "EUR",
      });
    });

    it("lists the invoices over a threshold, with their total, every one of them over it", async () => {
      const [middle] = await rows<{ amount: string }>(
        "SELECT amount::text FROM invoices WHERE org_id = $1 ORDER BY invoices.amount LIMIT 1 OFFSET 10",
      );
      const expected = await rows<{ id: string }>(
        "SELECT id FROM invoices WHERE org_id = $1 AND amount > $2::numeric ORDER BY amount DESC, id DESC",
        [middle!.amount],
      );
      expect(expected.length).toBeGreaterThan(1);
      const over = await query({
        resource: "invoices",
        where: [{ field: "amount", op: "gt", value: Number(middle!.amount) }],
        order_by: "-amount",
        limit: 50,
      });
      expect(over.mode).toBe("records");
      expect(over.total).toBe(expected.length);
      expect(ids(over.records)).toEqual(ids(expected));
      for (const record of over.records) expect(record.amount).toBeGreaterThan(Number(middle!.amount));
      // The same threshold written as text with a thousands separator.
      const written = await query({
        resource: "invoices",
        where: [{ field: "amount", op: "gt", value: Number(middle!.amount).toLocaleString("en-US") }],
        aggregate: { fn: "count" },
      });
      expect(written.total).toBe(expected.length);
    });

    it("counts the records that point at a record, in its own organization only, and names a record's contact", async () => {
      // Another organization's conversation with an id-less twin would count if the org were not checked.
      const silent = await rows<{ id: string }>(
        `SELECT id FROM contacts c WHERE org_id = $1
           AND NOT EXISTS (SELECT 1 FROM communications m WHERE m.org_id = c.org_id AND m.contact_id = c.id) ORDER BY id`,
      );
      expect(silent.length).toBeGreaterThan(0);
      const never = await query({
        resource: "contacts",
        where: [{ field: "communications", op: "eq", value: 0 }],
        order_by: "id",
        limit: 50,
      });
      expect(silent.length).toBeLessThanOrEqual(50);
      expect(ids(never.records).sort()).toEqual(ids(silent).sort());
      const [most] = await rows<{ id: string; n: number }>(
        `SELECT c.id, count(s.id)::int AS n FROM candidates c LEFT JOIN skills s
           ON s.org_id = c.org_id AND s.candidate_id = c.id AND s.status = 'verified'
           WHERE c.org_id = $1 GROUP BY c.id ORDER BY n DESC, c.id DESC LIMIT 1`,
      );
      const top = await query({ resource: "candidates", order_by: "-verified_skills", limit: 1 });
      expect(top.records[0]!.id).toBe(most!.id);
      // Conversations per contact: the groups are the contacts' names, each counted once.
      const perContact = await rows<{ name: string; n: number }>(
        `SELECT c.name, count(*)::int AS n FROM communications m JOIN contacts c ON c.org_id = m.org_id AND c.id = m.contact_id
           WHERE m.org_id = $1 GROUP BY c.name ORDER BY c.name`,
      );
      const grouped = await query({
        resource: "communications",
        where: [{ field: "contact_id", op: "not_null" }],
        aggregate: { fn: "count" },
        group_by: "contact",
      });
      expect(grouped.values.map((v) => [v.key, Number(v.value)])).toEqual(
        perContact.map((r) => [r.name, r.n]),
      );
    });

    it("reads, for any field, only tables of the engine whose scope the query was checked against", () => {
      // A field's SQL naming another engine's table (a contact's invoices) would let a growth-only key read finance data.
      for (const [resource, fields] of Object.entries(FIELDS) as Array<
        [ResourceName, (typeof FIELDS)[ResourceName]]
      >) {
        for (const [name, field] of Object.entries(fields)) {
          for (const [, table] of field.sql.matchAll(/\bFROM\s+(\w+)/gi)) {
            expect(engineOf(table as ResourceName), `${resource}.${name} reads ${table}`).toBe(
              engineOf(resource),
            );
          }
        }
      }
    });

    it("says a draft or a void invoice owes nothing", async () => {
      const owing = await query({
        resource: "invoices",
        where: [
          { field: "status", op: "in", value: ["draft", "void"] },
          { field: "outstanding", op: "gt", value: 0 },
        ],
        aggregate: { fn: "count" },
      });
      expect(owing.total).toBe(0);
    });

    it("keeps the deals between two values, both ends included", async () => {
      const values = await rows<{ value: string }>(
        "SELECT value::text FROM deals WHERE org_id = $1 ORDER BY deals.value, id",
      );
      const low = values[Math.floor(values.length / 4)]!.value;
      const high = values[Math.floor((values.length * 3) / 4)]!.value;
      const expected = await rows<{ id: string }>(
        "SELECT id FROM deals WHERE org_id = $1 AND value >= $2::numeric AND value <= $3::numeric ORDER BY value, id",
        [low, high],
      );
      const between = await query({
        resource: "deals",
        where: [
          { field: "value", op: "gte", value: low },
          { field: "value", op: "lte", value: high },
        ],
        order_by: "value",
        limit: 50,
      });
      expect(between.total).toBe(expected.length);
      expect(new Set(ids(between.records))).toEqual(new Set(ids(expected)));
      const found = between.records.map((record) => record.value as number);
      expect(found).toContain(Number(low));
      expect(found).toContain(Number(high));
      expect(Math.min(...found)).toBe(Number(low));
      expect(Math.max(...found)).toBe(Number(high));
    });

    it("takes the payments received within a window of days: from its first instant, up to its last", async () => {
      const expected = await rows<{ id: string }>(
        `SELECT id FROM payments WHERE org_id = $1
         AND received_at >= '2026-02-01T00:00:00Z' AND received_at < '2026-03-01T00:00:00Z' ORDER BY id`,
      );
      expect(expected.length).toBeGreaterThanOrEqual(4);
      const february = await query({
        resource: "payments",
        where: [
          { field: "received_at", op: "gte", value: "2026-02-01" },
          { field: "received_at", op: "lt", value: "2026-03-01" },
        ],
        limit: 50,
      });
      expect(february.total).toBe(expected.length);
      expect(ids(february.records).sort()).toEqual(ids(expected));
      for (const record of february.records) {
        expect(String(record.received_at) >= "2026-02-01" && String(record.received_at) < "2026-03-01").toBe(
          true,
        );
      }
    });

    it("finds the contacts without a company, and not_in keeps them", async () => {
      const expected = await rows<{ id: string; name: string }>(
        "SELECT id, name FROM contacts WHERE org_id = $1 AND (company IS NULL OR company = '') ORDER BY id",
      );
      expect(expected.map((row) => row.name)).toContain("Nadia Nocompany");
      const none = await query({
        resource: "contacts",
        where: [{ field: "company", op: "is_null" }],
        limit: 50,
      });
      expect(none.total).toBe(expected.length);
      expect(ids(none.records).sort()).toEqual(ids(expected));
      const [all] = await rows<{ n: number }>("SELECT count(*)::int AS n FROM contacts WHERE org_id = $1");
      const some = await query({ resource: "contacts", where: [{ field: "company", op: "not_null" }] });
      expect(some.total + none.total).toBe(all!.n);
      // "Not at this company" is every other company, and none: the contact without one stays.
      const [company] = await rows<{ company: string }>(
        "SELECT company FROM contacts WHERE org_id = $1 AND company IS NOT NULL ORDER BY company LIMIT 1",
      );
      const elsewhere = await rows<{ id: string }>(
        "SELECT id FROM contacts WHERE org_id = $1 AND (company IS NULL OR lower(company) <> lower($2)) ORDER BY id",
        [company!.company],
      );
      const notThere = await query({
        resource: "contacts",
        where: [{ field: "company", op: "not_in", value: [company!.company.toUpperCase()] }],
        limit: 50,
      });
      expect(notThere.total).toBe(elsewhere.length);
      expect(ids(notThere.records).sort()).toEqual(ids(elsewhere));
    });

    it("excludes statuses with not_in, on the status the caller sees", async () => {
      const [open] = await rows<{ n: number }>(
        "SELECT count(*)::int AS n FROM deals WHERE org_id = $1 AND (stage IS NULL OR stage NOT IN ('won', 'lost'))",
      );
      const deals = await query({
        resource: "deals",
        where: [{ field: "stage", op: "not_in", value: ["won", "lost"] }],
        aggregate: { fn: "count" },
      });
      expect(deals.total).toBe(open!.n);
      expect(deals.values).toEqual([{ value: String(open!.n), count: open!.n }]);
      const [unsettled] = await rows<{ n: number }>(
        "SELECT count(*)::int AS n FROM invoices WHERE org_id = $1 AND status NOT IN ('paid', 'void')",
      );
      const invoices = await query({
        resource: "invoices",
        where: [{ field: "status", op: "not_in", value: ["paid", "void"] }],
        aggregate: { fn: "count" },
      });
      expect(invoices.total).toBe(unsettled!.n);
      // Overdue is not stored: leaving it out leaves out the open invoices past due too.
      const [current] = await rows<{ n: number }>(
        `SELECT count(*)::int AS n FROM invoices WHERE org_id = $1
         AND status NOT IN ('paid', 'void', 'overdue') AND NOT (status = 'open' AND due_date < $2::date)`,
        [ctx.today],
      );
      const notLate = await query({
        resource: "invoices",
        where: [{ field: "status", op: "not_in", value: ["paid", "void", "overdue"] }],
        aggregate: { fn: "count" },
      });
      expect(notLate.total).toBe(current!.n);
    });

    it("averages and takes the median of invoice amounts per currency, as SQL rounds them", async () => {
      const expected = await rows<{ currency: string; avg: string; median: string; n: number }>(
        `SELECT trim(currency) AS currency, round(avg(amount), 2)::text AS avg,
           round((percentile_cont(0.5) WITHIN GROUP (ORDER BY amount))::numeric, 2)::text AS median,
           count(*)::int AS n
         FROM invoices WHERE org_id = $1 GROUP BY 1 ORDER BY 1`,
      );
      expect(expected.map((row) => row.currency)).toEqual(["EUR", "USD"]);
      const avg = await query({ resource: "invoices", aggregate: { fn: "avg", field: "amount" } });
      expect(avg.mode).toBe("aggregate");
      expect(avg.values).toEqual(
        expected.map((row) => ({ currency: row.currency, value: row.avg, count: row.n })),
      );
      expect(avg.total).toBe(expected.reduce((sum, row) => sum + row.n, 0));
      const median = await query({ resource: "invoices", aggregate: { fn: "median", field: "amount" } });
      expect(median.values).toEqual(
        expected.map((row) => ({ currency: row.currency, value: row.median, count: row.n })),
      );
      const [paid] = await rows<{ avg: string; n: number }>(
        "SELECT round(avg(amount), 2)::text AS avg, count(*)::int AS n FROM invoices WHERE org_id = $1 AND status = 'paid'",
      );
      const paidAvg = await query({
        resource: "invoices",
        where: [{ field: "status", op: "eq", value: "paid" }],
        aggregate: { fn: "avg", field: "amount" },
      });
      expect(paidAvg.values).toEqual([{ currency: "EUR", value: paid!.avg, count: paid!.n }]);
    });

    it("takes the smallest and largest deal value per currency, and the earliest and latest due date", async () => {
      const expected = await rows<{ currency: string; min: string; max: string; n: number }>(
        "SELECT trim(currency) AS currency, min(value)::text AS min, max(value)::text AS max, count(*)::int AS n FROM deals WHERE org_id = $1 GROUP BY 1 ORDER BY 1",
      );
      for (const fn of ["min", "max"] as const) {
        const found = await query({ resource: "deals", aggregate: { fn, field: "value" } });
        expect(found.values).toEqual(
          expected.map((row) => ({ currency: row.currency, value: row[fn], count: row.n })),
        );
      }
      const [dates] = await rows<{ min: string; max: string; n: number }>(
        "SELECT min(due_date)::text AS min, max(due_date)::text AS max, count(*)::int AS n FROM invoices WHERE org_id = $1",
      );
      const earliest = await query({ resource: "invoices", aggregate: { fn: "min", field: "due_date" } });
      const latest = await query({ resource: "invoices", aggregate: { fn: "max", field: "due_date" } });
      expect(earliest.values).toEqual([{ value: dates!.min, count: dates!.n }]);
      expect(latest.values).toEqual([{ value: dates!.max, count: dates!.n }]);
    });

    it("takes a ratio: the deals won among those won or lost, with count and matched", async () => {
      const [closed] = await rows<{ n: number; won: number }>(
        "SELECT count(*)::int AS n, (count(*) FILTER (WHERE stage = 'won'))::int AS won FROM deals WHERE org_id = $1 AND stage IN ('won', 'lost')",
      );
      expect(closed!.won).toBeGreaterThan(0);
      expect(closed!.won).toBeLessThan(closed!.n);
      const rate = await query({
        resource: "deals",
        where: [{ field: "stage", op: "in", value: ["won", "lost"] }],
        ratio: [{ field: "stage", op: "eq", value: "won" }],
      });
      expect(rate.mode).toBe("ratio");
      expect(rate.total).toBe(closed!.n);
      expect(rate.values).toEqual([{ value: null, count: closed!.n, matched: closed!.won }]);
    });

    it("sums payments per month of receipt, per currency", async () => {
      const expected = await rows<{ key: string; currency: string; sum: string; n: number }>(
        `SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM') AS key, trim(currency) AS currency,
           sum(amount)::text AS sum, count(*)::int AS n
         FROM payments WHERE org_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      expect(new Set(expected.map((row) => row.key)).size).toBeGreaterThanOrEqual(3);
      const monthly = await query({
        resource: "payments",
        aggregate: { fn: "sum", field: "amount" },
        group_by: "month:received_at",
      });
      expect(monthly.values).toEqual(
        expected.map((row) => ({ key: row.key, currency: row.currency, value: row.sum, count: row.n })),
      );
      const [all] = await rows<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE org_id = $1");
      expect(monthly.total).toBe(all!.n);
    });

    it("pages through records in an order: the second page continues the first, the total stays", async () => {
      const expected = await rows<{ id: string }>(
        "SELECT id FROM invoices WHERE org_id = $1 ORDER BY amount DESC, id DESC",
      );
      const first = await query({ resource: "invoices", order_by: "-amount", limit: 5 });
      const second = await query({ resource: "invoices", order_by: "-amount", limit: 5, offset: 5 });
      expect(first.total).toBe(expected.length);
      expect(second.total).toBe(expected.length);
      expect([...ids(first.records), ...ids(second.records)]).toEqual(ids(expected.slice(0, 10)));
      const past = await query({
        resource: "invoices",
        order_by: "-amount",
        limit: 5,
        offset: expected.length,
      });
      expect(past.records).toEqual([]);
      expect(past.total).toBe(expected.length);
      const ascending = await query({ resource: "invoices", order_by: "amount", limit: 3 });
      const [lowest] = await rows<{ id: string }>(
        "SELECT id FROM invoices WHERE org_id = $1 ORDER BY amount ASC, id ASC LIMIT 1",
      );
      expect(ascending.records[0]!.id).toBe(lowest!.id);
    });

    it("compares an invoice's status as the caller sees it: an open invoice past due is overdue", async () => {
      const overdue = await rows<{ id: string }>(
        `SELECT id FROM invoices WHERE org_id = $1
         AND (status = 'overdue' OR (status = 'open' AND due_date < $2::date)) ORDER BY id`,
        [ctx.today],
      );
      expect(overdue.length).toBeGreaterThan(0);
      const late = await query({
        resource: "invoices",
        where: [{ field: "status", op: "eq", value: "overdue" }],
        limit: 50,
      });
      expect(late.total).toBe(overdue.length);
      expect(ids(late.records).sort()).toEqual(ids(overdue));
      for (const record of late.records) expect(record.status).toBe("overdue");
      const [open] = await rows<{ n: number }>(
        "SELECT count(*)::int AS n FROM invoices WHERE org_id = $1 AND status = 'open' AND due_date >= $2::date",
        [ctx.today],
      );
      const current = await query({
        resource: "invoices",
        where: [{ field: "status", op: "eq", value: "open" }],
        aggregate: { fn: "count" },
      });
      expect(current.total).toBe(open!.n);
      const byStatus = await query({ resource: "invoices", aggregate: { fn: "count" }, group_by: "status" });
      expect(byStatus.values.find((value) => value.key === "overdue")?.count).toBe(overdue.length);
    });

    it("refuses a question it cannot answer, as validation_failed naming the problem", async () => {
      const refused = (args: Record<string, unknown>, message: RegExp) =>
        expect(query(args)).rejects.toSatisfy(
          (error: unknown) =>
            error instanceof AppError && error.code === "validation_failed" && message.test(error.message),
        );
      await refused(
        { resource: "invoices", where: [{ field: "colour", op: "eq", value: "red" }] },
        /invoices has no field 'colour' \(fields: id, number/,
      );
      await refused(
        { resource: "invoices", where: [{ field: "amount", op: "gt", value: "lots" }] },
        /amount compares with a number/,
      );
      await refused(
        { resource: "invoices", where: [{ field: "due_date", op: "lt", value: "next week" }] },
        /due_date compares with a date, YYYY-MM-DD/,
      );
      await refused(
        { resource: "invoices", where: [{ field: "status", op: "eq", value: "late" }] },
        /'late' is not a status \(one of: draft, open, overdue, paid, void\)/,
      );
      await refused(
        { resource: "deals", where: [{ field: "stage", op: "in", value: ["won", "closed"] }] },
        /'closed' is not a stage/,
      );
      await refused(
        {
          resource: "deals",
          aggregate: { fn: "count" },
          ratio: [{ field: "stage", op: "eq", value: "won" }],
        },
        /an aggregate or a ratio, not both/,
      );
      await refused({ resource: "deals", group_by: "stage" }, /group_by needs an aggregate or a ratio/);
      await refused(
        { resource: "deals", aggregate: { fn: "count" }, group_by: "month:title" },
        /title is not a date/,
      );
      await refused(
        { resource: "deals", aggregate: { fn: "avg", field: "title" } },
        /cannot take the avg of title/,
      );
      await refused({ resource: "deals", order_by: "-colour" }, /deals has no field 'colour'/);
      // The schema's own checks: an unknown operator, an unknown key.
      await refused(
        { resource: "deals", where: [{ field: "value", op: "between", value: 1 }] },
        /query_records: where\.0\.op/,
      );
      await refused({ resource: "deals", having: {} }, /query_records: .*having/);
    });

    it("counts related records that meet conditions of their own ('of'), one level deep", async () => {
      // Candidates without a TypeScript skill, and those with one, as SQL counts them.
      const without = await query({
        resource: "candidates",
        where: [
          { field: "skills", op: "eq", value: 0, of: [{ field: "name", op: "eq", value: "typescript" }] },
        ],
        limit: 50,
      });
      const truth = await rows<{ id: string }>(
        `SELECT c.id FROM candidates c WHERE c.org_id = $1 AND NOT EXISTS
           (SELECT 1 FROM skills s WHERE s.candidate_id = c.id AND s.org_id = c.org_id AND lower(s.name) = 'typescript')
         ORDER BY c.id`,
      );
      expect(ids(without.records).sort()).toEqual(truth.map((row) => row.id).sort());
      const withIt = await query({
        resource: "candidates",
        aggregate: { fn: "count" },
        where: [
          { field: "skills", op: "gt", value: 0, of: [{ field: "name", op: "eq", value: "TypeScript" }] },
        ],
      });
      const [all] = await rows<{ n: number }>("SELECT count(*)::int AS n FROM candidates WHERE org_id = $1");
      expect(Number(withIt.values[0]!.count) + without.total).toBe(all!.n);
      // Contacts with no call or text either way.
      const quiet = await query({
        resource: "contacts",
        where: [
          {
            field: "communications",
            op: "eq",
            value: 0,
            of: [{ field: "channel", op: "in", value: ["call", "sms"] }],
          },
        ],
        limit: 50,
      });
      const silent = await rows<{ id: string }>(
        `SELECT c.id FROM contacts c WHERE c.org_id = $1 AND NOT EXISTS
           (SELECT 1 FROM communications m WHERE m.contact_id = c.id AND m.org_id = c.org_id AND m.channel IN ('call', 'sms'))`,
      );
      expect(ids(quiet.records).sort()).toEqual(silent.map((row) => row.id).sort());
      // 'of' is for a count of related records; its conditions name the related resource's fields; no deeper.
      const refused = (args: Record<string, unknown>, message: RegExp) =>
        expect(query(args)).rejects.toSatisfy(
          (error: unknown) =>
            error instanceof AppError && error.code === "validation_failed" && message.test(error.message),
        );
      await refused(
        {
          resource: "candidates",
          where: [{ field: "name", op: "eq", value: "x", of: [{ field: "name", op: "eq", value: "y" }] }],
        },
        /'of' is for a count of related records/,
      );
      await refused(
        {
          resource: "candidates",
          where: [{ field: "skills", op: "gt", value: 0, of: [{ field: "colour", op: "eq", value: "y" }] }],
        },
        /skills has no field 'colour'/,
      );
      await refused(
        {
          resource: "candidates",
          where: [
            {
              field: "skills",
              op: "gt",
              value: 0,
              of: [{ field: "name", op: "eq", value: "y", of: [{ field: "name", op: "eq", value: "z" }] }],
            },
          ],
        },
        /query_records: where\.0\.of\.0/,
      );
    });

    it("never counts another organization's records", async () => {
      const [everywhere] = await store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM invoices WHERE amount >= 987654.32 AND org_id = $1",
        [otherOrg],
      );
      expect(everywhere!.n).toBe(1);
      const big = await query({
        resource: "invoices",
        where: [{ field: "amount", op: "gte", value: 987654.32 }],
      });
      expect(big.total).toBe(0);
      expect(big.records).toEqual([]);
      const [own] = await rows<{ n: number; sum: string }>(
        "SELECT count(*)::int AS n, sum(value)::text AS sum FROM deals WHERE org_id = $1 AND trim(currency) = 'EUR'",
      );
      const summed = await query({ resource: "deals", aggregate: { fn: "sum", field: "value" } });
      expect(summed.values).toEqual([{ currency: "EUR", value: own!.sum, count: own!.n }]);
      const counted = await query({ resource: "invoices", aggregate: { fn: "count" }, group_by: "client" });
      expect(counted.values.map((value) => value.key)).not.toContain("Elsewhere Ltd");
    });

    it("checks the caller's scope for the resource asked about", async () => {
      await expect(
        query({ resource: "invoices", aggregate: { fn: "count" } }, ["growth:read"]),
      ).rejects.toSatisfy(
        (error: unknown) =>
          error instanceof AppError &&
          error.code === "insufficient_scope" &&
          /finance:read/.test(error.message),
      );
      const [deals] = await rows<{ n: number }>("SELECT count(*)::int AS n FROM deals WHERE org_id = $1");
      const counted = await query({ resource: "deals", aggregate: { fn: "count" } }, ["growth:read"]);
      expect(counted.total).toBe(deals!.n);
    });
  });
});
