import { beforeAll, describe, expect, it } from "vitest";
import { SnapshotSchema } from "../../engines/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * `/v1/intelligence/snapshots`: refresh on demand (201 + Location), latest, by id,
 * history pages, the three-engine scope rule, organization isolation and bad input.
 * Every figure is proven exactly in test/engines/intelligence.test.ts; here a few are
 * checked end to end from data created through the API.
 */
const PATH = "/v1/intelligence/snapshots";

describe.each(storeKinds())("intelligence snapshots API on $name", (kind) => {
  let org: TestOrg;
  let other: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    other = await t.newOrg();
    const post = async (key: string, path: string, body: object) => {
      const res = await t.request("POST", path, { key, body });
      expect(res.status, `${path} ${res.text}`).toBe(201);
      return res.body as { id: string };
    };
    for (const key of [org.key, other.key]) {
      const inv = await post(key, "/v1/invoices", {
        client: "Acme",
        amount: "100.1",
        currency: "EUR",
        due_date: "2025-03-14",
      });
      await post(key, "/v1/payments", { invoice_id: inv.id, amount: "0.2", method: "card" });
      await post(key, "/v1/invoices", {
        client: "Acme",
        amount: "40",
        currency: "USD",
        due_date: "2025-04-01",
      });
      await post(key, "/v1/contacts", { name: "Ada" });
      await post(key, "/v1/deals", { title: "Big", value: "500", currency: "EUR", stage: "proposal" });
      await post(key, "/v1/candidates", { name: "Lin", email: "lin@example.com", position: "Engineer" });
    }
    // Only the other organization has a second contact: it must never show in ours.
    await post(other.key, "/v1/contacts", { name: "Bob" });
  });

  it("answers 404 not_found for latest before the first snapshot", async () => {
    const res = await t.request("GET", `${PATH}/latest`, { key: org.key });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.body.code).toBe("not_found");
    const list = await t.request("GET", PATH, { key: org.key });
    expect(list.body).toEqual({ data: [], meta: { total: 0, page: 1, per_page: 25 } });
  });

  it("refreshes on demand with 201 and Location, and serves it as latest and by id", async () => {
    const created = await t.request("POST", PATH, { key: org.key });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${PATH}/${created.body.id}`);
    expect(SnapshotSchema.parse(created.body)).toEqual(created.body);
    expect(created.body).toMatchObject({
      object: "intelligence_snapshot",
      computed_at: "2025-03-15T10:00:00Z",
      metadata: {},
      finance: {
        outstanding: { EUR: 99.9, USD: 40 },
        overdue: { EUR: 99.9 },
        overdue_count: 1,
        paid_30_days: { EUR: 0.2 },
        invoiced_90_days: { EUR: 100.1, USD: 40 },
      },
      growth: {
        contacts: 1,
        new_contacts_30_days: 1,
        pipeline_value_by_stage: { lead: {}, qualified: {}, proposal: { EUR: 500 } },
        win_rate: null,
      },
      talent: {
        candidates_by_status: { applied: 1, screening: 0, interview: 0, offer: 0, hired: 0, rejected: 0 },
      },
    });
    const latest = await t.request("GET", `${PATH}/latest`, { key: org.key });
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual(created.body);
    const byId = await t.request("GET", `${PATH}/${created.body.id}`, { key: org.key });
    expect(byId.body).toEqual(created.body);
    // An empty JSON object is a refresh too.
    const again = await t.request("POST", PATH, { key: org.key, body: {} });
    expect(again.status).toBe(201);
  });

  it("pages the history newest first with the shared list params", async () => {
    const fresh = await t.newOrg();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000);
      ids.push((await t.request("POST", PATH, { key: fresh.key })).body.id);
    }
    const first = await t.request("GET", `${PATH}?per_page=2`, { key: fresh.key });
    expect(first.status).toBe(200);
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.meta).toEqual({ total: 3, page: 1, per_page: 2 });
    const second = await t.request("GET", `${PATH}?per_page=2&page=2`, { key: fresh.key });
    expect(second.body.data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    const oldest = await t.request("GET", `${PATH}?sort=created_at&per_page=1`, { key: fresh.key });
    expect(oldest.body.data[0].id).toBe(ids[0]);
  });

  it("never shows another organization's snapshots: 404 by id, absent from lists", async () => {
    const theirs = await t.request("POST", PATH, { key: other.key });
    expect(theirs.body.growth.contacts).toBe(2);
    const res = await t.request("GET", `${PATH}/${theirs.body.id}`, { key: org.key });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
    const mine = await t.request("GET", `${PATH}?per_page=100`, { key: org.key });
    expect(mine.body.data.map((s: { id: string }) => s.id)).not.toContain(theirs.body.id);
    expect((await t.request("GET", `${PATH}/latest`, { key: org.key })).body.growth.contacts).toBe(1);
  });

  it("needs read on finance, growth and talent to read, and write on all three to refresh", async () => {
    const readOnly = await org.addKey({ kind: "read_only" });
    expect((await t.request("GET", `${PATH}/latest`, { key: readOnly })).status).toBe(200);
    const refused = await t.request("POST", PATH, { key: readOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");

    const allRead = await org.addKey({ kind: "engine", engines: ["finance", "growth", "talent"] });
    expect((await t.request("GET", PATH, { key: allRead })).status).toBe(200);
    expect((await t.request("POST", PATH, { key: allRead })).status).toBe(403);
    const allWrite = await org.addKey({
      kind: "engine",
      engines: ["finance", "growth", "talent"],
      access: "write",
    });
    expect((await t.request("POST", PATH, { key: allWrite })).status).toBe(201);

    for (const engines of [["finance"], ["finance", "growth"], ["growth", "talent"]] as const) {
      const key = await org.addKey({ kind: "engine", engines: [...engines], access: "write" });
      for (const [method, path] of [
        ["GET", PATH],
        ["GET", `${PATH}/latest`],
        ["POST", PATH],
      ] as const) {
        const res = await t.request(method, path, { key });
        expect(res.status, `${engines.join(",")} ${method} ${path}`).toBe(403);
        expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
      }
    }
    expect((await t.request("GET", PATH)).status).toBe(401);
  });

  it("refuses bad paging and sort with 400 naming the param, and a body with fields with 422", async () => {
    for (const [query, param] of [
      ["page=0", "page"],
      ["per_page=101", "per_page"],
      ["per_page=abc", "per_page"],
      ["page=200&per_page=100", "page"],
      ["sort=amount", "sort"],
      ["created_after=yesterday", "created_after"],
    ]) {
      const res = await t.request("GET", `${PATH}?${query}`, { key: org.key });
      expect(res.status, query).toBe(400);
      expect(res.body.errors.map((e: { param: string }) => e.param)).toContain(param);
    }
    const withFields = await t.request("POST", PATH, { key: org.key, body: { finance: {} } });
    expect(withFields.status).toBe(422);
    expect((await t.request("GET", `${PATH}/snap_doesnotexist`, { key: org.key })).status).toBe(404);
    expect((await t.request("GET", `${PATH}/not-an-id`, { key: org.key })).status).toBe(404);
    expect((await t.request("DELETE", `${PATH}/latest`, { key: org.key })).status).toBe(405);
  });

  it("documents the four operations in the OpenAPI document", async () => {
    const doc = await t.request("GET", "/v1/openapi.json");
    expect(Object.keys(doc.body.paths[PATH])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(doc.body.paths[`${PATH}/latest`].get).toBeDefined();
    expect(doc.body.paths[`${PATH}/{id}`].get).toBeDefined();
    expect(doc.body.components.schemas.IntelligenceSnapshot).toBeDefined();
  });
});
