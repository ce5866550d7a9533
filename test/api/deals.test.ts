import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The deal pipeline (engines/growth/deals.ts): stage transitions and their 409s,
 * closed_at, the domain events, references to contacts, filters, and what a
 * contact or deal cannot be deleted from under.
 */

interface EventBody {
  type: string;
  timestamp: string;
  data: { object: { id: string; [key: string]: unknown }; previous_attributes?: Record<string, unknown> };
}

describe.each(storeKinds())("deals on $name", (kind) => {
  let org: TestOrg;
  let contactId: string;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    contactId = (await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Grace Hopper" } }))
      .body.id;
  });

  const create = (body: Record<string, unknown> = {}, key = org.key) =>
    t.request("POST", "/v1/deals", {
      key,
      body: { title: "Fleet renewal", value: 12000, currency: "EUR", ...body },
    });
  const patch = (id: string, body: Record<string, unknown>) =>
    t.request("PATCH", `/v1/deals/${id}`, { key: org.key, body });
  const moveTo = async (id: string, ...stages: string[]) => {
    for (const stage of stages) expect((await patch(id, { stage })).status, stage).toBe(200);
  };
  /** Events about one object, oldest first. */
  const eventsOf = async (id: string, family = "deal.*"): Promise<EventBody[]> => {
    const response = await t.request("GET", `/v1/events?type=${family}&per_page=100`, { key: org.key });
    expect(response.status, response.text).toBe(200);
    return (response.body.data as EventBody[]).filter((e) => e.data.object.id === id).reverse();
  };
  const expectRefusedTransition = (response: TestResponse, from: string, to: string) => {
    expect(response.status, response.text).toBe(409);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.body.code).toBe("invalid_state_transition");
    expect(response.body.detail).toBe(`Deal is ${from}; it cannot become ${to}`);
    expect(response.body.errors).toEqual([
      { param: "stage", code: "invalid_transition", message: `${from} → ${to} is not allowed` },
    ]);
  };

  describe("create", () => {
    it("creates a lead by default, with the exact value, no closed_at, and its contact", async () => {
      const created = await create({
        value: "1234567.8912",
        contact_id: contactId,
        expected_close_date: "2025-06-30",
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        object: "deal",
        title: "Fleet renewal",
        contact_id: contactId,
        value: 1234567.8912,
        currency: "EUR",
        stage: "lead",
        expected_close_date: "2025-06-30",
        closed_at: null,
      });
      const [row] = await t.store.query("SELECT value::text AS value FROM deals WHERE id = $1", [
        created.body.id,
      ]);
      expect(row!.value).toBe("1234567.8912");
    });

    it("creates a deal without a contact or close date as nulls", async () => {
      const created = await create();
      expect(created.body).toMatchObject({ contact_id: null, expected_close_date: null });
    });

    it("creates in any open stage, and records only deal.created", async () => {
      for (const stage of ["qualified", "proposal"]) {
        const created = await create({ stage });
        expect(created.body.stage).toBe(stage);
        expect((await eventsOf(created.body.id)).map((e) => e.type)).toEqual(["deal.created"]);
      }
    });
  });

  describe("stage transitions", () => {
    it("moves forward, skipping stages, and back to an earlier open stage", async () => {
      const deal = await create();
      const skipped = await patch(deal.body.id, { stage: "proposal" });
      expect(skipped.status, skipped.text).toBe(200);
      expect(skipped.body.stage).toBe("proposal");
      const back = await patch(deal.body.id, { stage: "lead" });
      expect(back.body.stage).toBe("lead");
      const forward = await patch(deal.body.id, { stage: "qualified" });
      expect(forward.body).toMatchObject({ stage: "qualified", closed_at: null });
    });

    it("wins from proposal, setting closed_at to the time it was won", async () => {
      const deal = await create({ stage: "proposal" });
      t.clock.set("2025-03-20T14:30:00Z");
      const won = await patch(deal.body.id, { stage: "won" });
      expect(won.status, won.text).toBe(200);
      expect(won.body).toMatchObject({ stage: "won", closed_at: "2025-03-20T14:30:00Z" });
      expect((await t.request("GET", `/v1/deals/${deal.body.id}`, { key: org.key })).body).toEqual(won.body);
      t.clock.set("2025-03-15T10:00:00Z");
    });

    it.each([["lead"], ["qualified"]])("refuses %s → won with 409 naming both stages", async (stage) => {
      const deal = await create({ stage });
      expectRefusedTransition(await patch(deal.body.id, { stage: "won" }), stage, "won");
    });

    it.each([["lead"], ["qualified"], ["proposal"]])("loses from %s, setting closed_at", async (stage) => {
      const deal = await create({ stage });
      const lost = await patch(deal.body.id, { stage: "lost" });
      expect(lost.status, lost.text).toBe(200);
      expect(lost.body).toMatchObject({ stage: "lost", closed_at: "2025-03-15T10:00:00Z" });
    });

    it("refuses won → lead with 409 naming both stages, and changes nothing", async () => {
      const deal = await create({ stage: "proposal" });
      const won = await patch(deal.body.id, { stage: "won" });
      const eventsBefore = await eventsOf(deal.body.id);
      t.clock.advance(60_000);
      expectRefusedTransition(await patch(deal.body.id, { stage: "lead" }), "won", "lead");
      expect((await t.request("GET", `/v1/deals/${deal.body.id}`, { key: org.key })).body).toEqual(won.body);
      expect(await eventsOf(deal.body.id)).toEqual(eventsBefore);
      t.clock.set("2025-03-15T10:00:00Z");
    });

    it.each([
      ["won", "lost"],
      ["won", "proposal"],
      ["lost", "won"],
      ["lost", "lead"],
      ["lost", "proposal"],
    ])("refuses %s → %s: won and lost are final", async (final, to) => {
      const deal = await create({ stage: "proposal" });
      await moveTo(deal.body.id, final);
      expectRefusedTransition(await patch(deal.body.id, { stage: to }), final, to);
    });

    it("lets a closed deal change only its title and metadata (409 naming each other field)", async () => {
      const deal = await create({ stage: "proposal", contact_id: contactId });
      await moveTo(deal.body.id, "lost");
      const locked = await patch(deal.body.id, { value: 1, contact_id: null, title: "Still fine" });
      expect(locked.status, locked.text).toBe(409);
      expect(locked.body.code).toBe("invalid_state_transition");
      expect(locked.body.detail).toBe("Deal is lost; only metadata and title can change");
      expect(locked.body.errors.map((e: { param: string }) => e.param).sort()).toEqual([
        "contact_id",
        "value",
      ]);
      expect(locked.body.errors[0].code).toBe("deal_final");

      const allowed = await patch(deal.body.id, {
        title: "Lost to a competitor",
        metadata: { reason: "price" },
      });
      expect(allowed.status, allowed.text).toBe(200);
      expect(allowed.body).toMatchObject({
        title: "Lost to a competitor",
        metadata: { reason: "price" },
        value: 12000,
        contact_id: contactId,
        stage: "lost",
      });
      const same = await patch(deal.body.id, { stage: "lost", title: "Lost on price" });
      expect(same.status, same.text).toBe(200);
      expect(same.body.closed_at).toBe(allowed.body.closed_at);
    });
  });

  describe("events", () => {
    it("records deal.updated with previous_attributes, deal.stage_changed and deal.won in the change", async () => {
      const deal = await create({ stage: "qualified" });
      t.clock.set("2025-03-16T09:00:00Z");
      await patch(deal.body.id, { stage: "proposal", value: 15000 });
      t.clock.set("2025-03-17T09:00:00Z");
      await patch(deal.body.id, { stage: "won" });
      t.clock.set("2025-03-15T10:00:00Z");

      const events = await eventsOf(deal.body.id);
      expect(events.map((e) => e.type)).toEqual([
        "deal.created",
        "deal.updated",
        "deal.stage_changed",
        "deal.updated",
        "deal.stage_changed",
        "deal.won",
      ]);
      expect(events[1]!.data.previous_attributes).toEqual({ stage: "qualified", value: 12000 });
      expect(events[2]!.data.object).toMatchObject({ stage: "proposal", value: 15000 });
      expect(events[3]!.data.previous_attributes).toEqual({ stage: "proposal", closed_at: null });
      expect(events[5]!).toMatchObject({
        timestamp: "2025-03-17T09:00:00Z",
        data: { object: { stage: "won", closed_at: "2025-03-17T09:00:00Z" } },
      });
    });

    it("records deal.lost with deal.stage_changed", async () => {
      const deal = await create();
      await patch(deal.body.id, { stage: "lost" });
      const types = (await eventsOf(deal.body.id)).map((e) => e.type);
      expect(types).toEqual(["deal.created", "deal.updated", "deal.stage_changed", "deal.lost"]);
    });

    it("records no stage event for an edit that keeps the stage, and nothing for a no-op", async () => {
      const deal = await create({ stage: "qualified" });
      await patch(deal.body.id, { title: "Fleet renewal (10 vans)" });
      await patch(deal.body.id, { stage: "qualified" });
      const events = await eventsOf(deal.body.id);
      expect(events.map((e) => e.type)).toEqual(["deal.created", "deal.updated"]);
      expect(events[1]!.data.previous_attributes).toEqual({ title: "Fleet renewal" });
    });

    it("lists the deal and contact domain events in the event type catalog", async () => {
      const catalog = await t.request("GET", "/v1/event_types", { key: org.key });
      expect(catalog.status, catalog.text).toBe(200);
      const types = JSON.stringify(catalog.body);
      for (const type of ["deal.stage_changed", "deal.won", "deal.lost", "contact.lifecycle_stage_changed"]) {
        expect(types).toContain(`"${type}"`);
      }
    });
  });

  describe("references", () => {
    it("refuses a contact of another organization with 422 invalid_reference, on create and patch", async () => {
      const other = await t.newOrg();
      const theirs = await t.request("POST", "/v1/contacts", { key: other.key, body: { name: "Not yours" } });
      const created = await create({ contact_id: theirs.body.id });
      expect(created.status).toBe(422);
      expect(created.body.errors).toEqual([
        expect.objectContaining({ param: "contact_id", code: "invalid_reference" }),
      ]);
      const deal = await create();
      const patched = await patch(deal.body.id, { contact_id: theirs.body.id });
      expect(patched.status).toBe(422);
      expect(patched.body.errors[0]).toMatchObject({ param: "contact_id", code: "invalid_reference" });
    });

    it("moves a deal to another contact of its organization, and off any contact with null", async () => {
      const deal = await create({ contact_id: contactId });
      const other = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Katherine" } });
      expect((await patch(deal.body.id, { contact_id: other.body.id })).body.contact_id).toBe(other.body.id);
      expect((await patch(deal.body.id, { contact_id: null })).body.contact_id).toBeNull();
    });
  });

  describe("deletes", () => {
    it("refuses to delete a deal that communications refer to (409), then deletes it once they are gone", async () => {
      const deal = await create({ contact_id: contactId });
      const comm = await t.request("POST", "/v1/communications", {
        key: org.key,
        body: { contact_id: contactId, deal_id: deal.body.id, channel: "call", direction: "outbound" },
      });
      expect(comm.status, comm.text).toBe(201);
      const refused = await t.request("DELETE", `/v1/deals/${deal.body.id}`, { key: org.key });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("conflict");
      expect(refused.body.detail).toContain("communications");
      expect((await t.request("GET", `/v1/deals/${deal.body.id}`, { key: org.key })).status).toBe(200);

      await t.request("DELETE", `/v1/communications/${comm.body.id}`, { key: org.key });
      expect((await t.request("DELETE", `/v1/deals/${deal.body.id}`, { key: org.key })).status).toBe(204);
    });

    it("deletes a closed deal", async () => {
      const deal = await create({ stage: "proposal" });
      await moveTo(deal.body.id, "won");
      expect((await t.request("DELETE", `/v1/deals/${deal.body.id}`, { key: org.key })).status).toBe(204);
    });

    it("refuses to delete a contact that a deal refers to (409 naming deals), until the deal moves off it", async () => {
      const contact = await t.request("POST", "/v1/contacts", {
        key: org.key,
        body: { name: "Deal Holder" },
      });
      const deal = await create({ contact_id: contact.body.id });
      const refused = await t.request("DELETE", `/v1/contacts/${contact.body.id}`, { key: org.key });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("conflict");
      expect(refused.body.detail).toContain("has deals");
      await patch(deal.body.id, { contact_id: null });
      expect((await t.request("DELETE", `/v1/contacts/${contact.body.id}`, { key: org.key })).status).toBe(
        204,
      );
    });
  });

  describe("contact lifecycle events", () => {
    it("records contact.lifecycle_stage_changed when the stage changes, not on create or other edits", async () => {
      const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Lin" } });
      const id = contact.body.id as string;
      const patchContact = (body: Record<string, unknown>) =>
        t.request("PATCH", `/v1/contacts/${id}`, { key: org.key, body });
      await patchContact({ company: "Compilers Inc" });
      await patchContact({ lifecycle_stage: "prospect" });
      await patchContact({ lifecycle_stage: "prospect" });
      const events = await eventsOf(id, "contact.*");
      expect(events.map((e) => e.type)).toEqual([
        "contact.created",
        "contact.updated",
        "contact.updated",
        "contact.lifecycle_stage_changed",
      ]);
      expect(events[2]!.data.previous_attributes).toEqual({ lifecycle_stage: "lead" });
      expect(events[3]!.data.object).toMatchObject({ id, lifecycle_stage: "prospect" });
    });
  });

  describe("list filters", () => {
    let listOrg: TestOrg;
    const ids: Record<string, string> = {};
    let listContact: string;

    beforeAll(async () => {
      listOrg = await t.newOrg();
      listContact = (await t.request("POST", "/v1/contacts", { key: listOrg.key, body: { name: "Buyer" } }))
        .body.id;
      const make = async (name: string, body: Record<string, unknown>) => {
        const created = await create({ title: name, ...body }, listOrg.key);
        expect(created.status, created.text).toBe(201);
        ids[name] = created.body.id;
      };
      await make("Alpha fleet", {
        stage: "lead",
        expected_close_date: "2025-04-01",
        contact_id: listContact,
      });
      await make("Beta licences", { stage: "qualified", currency: "USD", expected_close_date: "2025-05-01" });
      await make("Gamma support", { stage: "proposal", expected_close_date: "2025-06-01", value: 50 });
      await make("Delta rollout", { stage: "proposal", contact_id: listContact });
      await t.request("PATCH", `/v1/deals/${ids["Delta rollout"]}`, {
        key: listOrg.key,
        body: { stage: "won" },
      });
    });

    const list = async (query: string) => {
      const response = await t.request("GET", `/v1/deals?${query}`, { key: listOrg.key });
      expect(response.status, response.text).toBe(200);
      return (response.body.data as Array<{ id: string }>).map((d) => d.id);
    };
    const named = (...names: string[]) => names.map((name) => ids[name]);

    it("filters by one stage or a comma list of stages", async () => {
      expect(await list("stage=won")).toEqual(named("Delta rollout"));
      expect(new Set(await list("stage=lead,proposal"))).toEqual(
        new Set(named("Alpha fleet", "Gamma support")),
      );
    });

    it("filters by contact_id and by currency", async () => {
      expect(new Set(await list(`contact_id=${listContact}`))).toEqual(
        new Set(named("Alpha fleet", "Delta rollout")),
      );
      expect(await list("currency=USD")).toEqual(named("Beta licences"));
    });

    it("filters by expected close date, exclusive at both ends, leaving out deals without one", async () => {
      expect(await list("expected_close_before=2025-05-01&sort=expected_close_date")).toEqual(
        named("Alpha fleet"),
      );
      expect(await list("expected_close_after=2025-04-01&sort=expected_close_date")).toEqual(
        named("Beta licences", "Gamma support"),
      );
    });

    it("refuses a malformed expected_close_before with 400 naming it", async () => {
      const bad = await t.request("GET", "/v1/deals?expected_close_before=2025-02-30", { key: listOrg.key });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].param).toBe("expected_close_before");
    });

    it("searches titles with q and sorts by value and title", async () => {
      expect(await list("q=SUPPORT")).toEqual(named("Gamma support"));
      expect((await list("sort=value"))[0]).toBe(ids["Gamma support"]);
      expect(await list("sort=title")).toEqual(
        named("Alpha fleet", "Beta licences", "Delta rollout", "Gamma support"),
      );
    });

    it("refuses an unknown stage in a list with 400 naming stage", async () => {
      const bad = await t.request("GET", "/v1/deals?stage=lead,closed", { key: listOrg.key });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ param: "stage" })]);
    });

    it("takes a comma inside a one-value filter as part of the value (company=Acme, Inc.)", async () => {
      const acme = await t.request("POST", "/v1/contacts", {
        key: org.key,
        body: { name: "Ada", company: "Acme, Inc." },
      });
      await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Bob", company: "Acme" } });
      const found = await t.request("GET", `/v1/contacts?company=${encodeURIComponent("Acme, Inc.")}`, {
        key: org.key,
      });
      expect(found.status).toBe(200);
      expect(found.body.data.map((c: { id: string }) => c.id)).toEqual([acme.body.id]);
    });
  });
});
