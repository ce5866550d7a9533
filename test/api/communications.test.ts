import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Communications (engines/growth/communications.ts): occurred_at, nullable
 * subject and body, references to a contact and a deal, their events, the
 * timeline filters, and the deletes they hold back.
 */

describe.each(storeKinds())("communications on $name", (kind) => {
  let org: TestOrg;
  let contactId: string;
  let dealId: string;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    contactId = (await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada Lovelace" } }))
      .body.id;
    dealId = (
      await t.request("POST", "/v1/deals", {
        key: org.key,
        body: { title: "Engine order", value: 900, currency: "GBP", contact_id: contactId },
      })
    ).body.id;
  });

  const create = (body: Record<string, unknown> = {}, key = org.key) =>
    t.request("POST", "/v1/communications", {
      key,
      body: { contact_id: contactId, channel: "email", direction: "inbound", ...body },
    });
  const patch = (id: string, body: Record<string, unknown>) =>
    t.request("PATCH", `/v1/communications/${id}`, { key: org.key, body });

  describe("create and update", () => {
    it("defaults occurred_at to now and subject, body and deal_id to null", async () => {
      t.clock.set("2025-03-15T10:20:30Z");
      const created = await create();
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        object: "communication",
        contact_id: contactId,
        deal_id: null,
        channel: "email",
        direction: "inbound",
        subject: null,
        body: null,
        occurred_at: "2025-03-15T10:20:30Z",
      });
      expect(created.body.id).toMatch(/^comm_[0-9A-Za-z]+$/);
      t.clock.set("2025-03-15T10:00:00Z");
    });

    it("keeps a given occurred_at, rendered in UTC, and the subject and body as sent", async () => {
      const body = "Dear Ada,\n\nThe engine parts ship Monday.\n\n— Charles";
      const created = await create({
        deal_id: dealId,
        channel: "meeting",
        direction: "outbound",
        subject: "Shipping dates",
        body,
        occurred_at: "2025-03-01T09:30:00+02:00",
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        deal_id: dealId,
        subject: "Shipping dates",
        body,
        occurred_at: "2025-03-01T07:30:00Z",
      });
    });

    it("accepts a body of 20000 characters", async () => {
      const created = await create({ body: "x".repeat(20_000) });
      expect(created.status, created.text).toBe(201);
      expect(created.body.body).toHaveLength(20_000);
    });

    it("clears subject, body and deal_id with null, and records previous_attributes", async () => {
      const created = await create({ deal_id: dealId, subject: "Quote", body: "See attached." });
      t.clock.set("2025-03-15T11:00:00Z");
      const cleared = await patch(created.body.id, { subject: null, body: null, deal_id: null });
      t.clock.set("2025-03-15T10:00:00Z");
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.body).toMatchObject({ subject: null, body: null, deal_id: null, contact_id: contactId });

      const events = await t.request("GET", "/v1/events?type=communication.*&per_page=100", { key: org.key });
      const mine = (
        events.body.data as Array<{
          type: string;
          data: { object: { id: string }; previous_attributes?: object };
        }>
      ).filter((e) => e.data.object.id === created.body.id);
      expect(mine.map((e) => e.type)).toEqual(["communication.updated", "communication.created"]);
      expect(mine[0]!.data.previous_attributes).toEqual({
        subject: "Quote",
        body: "See attached.",
        deal_id: dealId,
      });
    });

    it("moves a communication to another contact and deal of its organization", async () => {
      const created = await create();
      const other = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Mary" } });
      const moved = await patch(created.body.id, { contact_id: other.body.id, deal_id: dealId });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body).toMatchObject({ contact_id: other.body.id, deal_id: dealId });
    });
  });

  describe("references", () => {
    let foreign: { contactId: string; dealId: string };

    beforeAll(async () => {
      const other = await t.newOrg();
      const contact = await t.request("POST", "/v1/contacts", {
        key: other.key,
        body: { name: "Not yours" },
      });
      const deal = await t.request("POST", "/v1/deals", {
        key: other.key,
        body: { title: "Not yours", value: 1, currency: "EUR" },
      });
      foreign = { contactId: contact.body.id, dealId: deal.body.id };
    });

    it("refuses another organization's contact or deal with 422 invalid_reference, storing nothing", async () => {
      const count = async () =>
        (await t.request("GET", "/v1/communications?per_page=1", { key: org.key })).body.meta.total;
      const before = await count();
      for (const [param, body] of [
        ["contact_id", { contact_id: foreign.contactId }],
        ["deal_id", { deal_id: foreign.dealId }],
      ] as const) {
        const refused = await create(body);
        expect(refused.status, refused.text).toBe(422);
        expect(refused.body.errors).toEqual([expect.objectContaining({ param, code: "invalid_reference" })]);
      }
      expect(await count()).toBe(before);
    });

    it("refuses to point an existing communication at another organization's deal", async () => {
      const created = await create();
      const refused = await patch(created.body.id, { deal_id: foreign.dealId });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ param: "deal_id", code: "invalid_reference" });
      const got = await t.request("GET", `/v1/communications/${created.body.id}`, { key: org.key });
      expect(got.body.deal_id).toBeNull();
    });

    it("refuses to delete a contact that communications refer to (409 naming communications)", async () => {
      const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Chatty" } });
      const comm = await create({ contact_id: contact.body.id });
      const refused = await t.request("DELETE", `/v1/contacts/${contact.body.id}`, { key: org.key });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("conflict");
      expect(refused.body.detail).toContain("has communications");
      expect(refused.body.detail).not.toContain("deals");
      await t.request("DELETE", `/v1/communications/${comm.body.id}`, { key: org.key });
      expect((await t.request("DELETE", `/v1/contacts/${contact.body.id}`, { key: org.key })).status).toBe(
        204,
      );
    });

    it("names every kind of object that holds a contact back from deletion", async () => {
      const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Busy" } });
      await create({ contact_id: contact.body.id });
      await t.request("POST", "/v1/deals", {
        key: org.key,
        body: { title: "Busy deal", value: 1, currency: "EUR", contact_id: contact.body.id },
      });
      await t.request("POST", "/v1/invoices", {
        key: org.key,
        body: {
          client: "Busy",
          amount: 1,
          currency: "EUR",
          due_date: "2025-04-01",
          contact_id: contact.body.id,
        },
      });
      const refused = await t.request("DELETE", `/v1/contacts/${contact.body.id}`, { key: org.key });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain("has invoices and deals and communications");
    });

    it("refuses to delete a deal with communications until they are moved off it", async () => {
      const deal = await t.request("POST", "/v1/deals", {
        key: org.key,
        body: { title: "Short-lived", value: 1, currency: "EUR" },
      });
      const comm = await create({ deal_id: deal.body.id });
      const refused = await t.request("DELETE", `/v1/deals/${deal.body.id}`, { key: org.key });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("conflict");
      await patch(comm.body.id, { deal_id: null });
      expect((await t.request("DELETE", `/v1/deals/${deal.body.id}`, { key: org.key })).status).toBe(204);
    });
  });

  describe("list filters", () => {
    let listOrg: TestOrg;
    let ada: string;
    let bob: string;
    let deal: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      listOrg = await t.newOrg();
      const contact = async (name: string) =>
        (await t.request("POST", "/v1/contacts", { key: listOrg.key, body: { name } })).body.id as string;
      ada = await contact("Ada");
      bob = await contact("Bob");
      deal = (
        await t.request("POST", "/v1/deals", {
          key: listOrg.key,
          body: { title: "Big one", value: 10, currency: "EUR", contact_id: ada },
        })
      ).body.id;
      const make = async (name: string, body: Record<string, unknown>) => {
        const created = await create(body, listOrg.key);
        expect(created.status, created.text).toBe(201);
        ids[name] = created.body.id;
      };
      await make("intro", {
        contact_id: ada,
        channel: "email",
        direction: "outbound",
        subject: "Introduction",
        body: "Pricing attached",
        occurred_at: "2025-03-01T09:00:00Z",
      });
      await make("call", {
        contact_id: ada,
        deal_id: deal,
        channel: "call",
        direction: "inbound",
        subject: null,
        body: "Asked about PRICING tiers",
        occurred_at: "2025-03-02T15:00:00Z",
      });
      await make("text", {
        contact_id: bob,
        channel: "sms",
        direction: "inbound",
        body: "running late",
        occurred_at: "2025-03-03T08:00:00Z",
      });
      await make("meeting", {
        contact_id: bob,
        deal_id: deal,
        channel: "meeting",
        direction: "outbound",
        subject: "Demo",
        occurred_at: "2025-03-04T13:00:00+01:00",
      });
    });

    const list = async (query: string) => {
      const response = await t.request("GET", `/v1/communications?${query}`, { key: listOrg.key });
      expect(response.status, response.text).toBe(200);
      return (response.body.data as Array<{ id: string }>).map((c) => c.id);
    };
    const named = (...names: string[]) => names.map((name) => ids[name]);

    it("filters by contact_id and by deal_id", async () => {
      expect(await list(`contact_id=${bob}&sort=occurred_at`)).toEqual(named("text", "meeting"));
      expect(await list(`deal_id=${deal}&sort=occurred_at`)).toEqual(named("call", "meeting"));
    });

    it("filters by one channel or a comma list, and by direction", async () => {
      expect(await list("channel=sms")).toEqual(named("text"));
      expect(await list("channel=call,meeting&sort=occurred_at")).toEqual(named("call", "meeting"));
      expect(await list("direction=outbound&sort=occurred_at")).toEqual(named("intro", "meeting"));
    });

    it("filters by occurred_after and occurred_before, exclusive, as timestamps or dates", async () => {
      expect(await list("occurred_after=2025-03-02T15:00:00Z&sort=occurred_at")).toEqual(
        named("text", "meeting"),
      );
      expect(await list("occurred_before=2025-03-02T15:00:00Z")).toEqual(named("intro"));
      expect(
        await list(
          `occurred_after=2025-03-02&occurred_before=${encodeURIComponent("2025-03-04T12:00:00+01:00")}&sort=occurred_at`,
        ),
      ).toEqual(named("call", "text"));
    });

    it("sorts by occurred_at in both directions", async () => {
      const ascending = await list("sort=occurred_at");
      expect(ascending).toEqual(named("intro", "call", "text", "meeting"));
      expect(await list("sort=-occurred_at")).toEqual([...ascending].reverse());
    });

    it("searches subject and body with q, case-insensitively", async () => {
      expect(await list("q=pricing&sort=occurred_at")).toEqual(named("intro", "call"));
      expect(await list("q=demo")).toEqual(named("meeting"));
    });

    it.each([
      ["yesterday"],
      ["2025-02-30"],
      ["2025-03-01T10:00:00"],
      ["2025-03-01,2025-03-02"],
      ["0000-01-01"],
    ])("refuses occurred_after=%s with 400 naming it", async (value) => {
      const bad = await t.request("GET", `/v1/communications?occurred_after=${value}`, { key: listOrg.key });
      expect(bad.status, bad.text).toBe(400);
      expect(bad.headers.get("content-type")).toBe("application/problem+json");
      expect(bad.body.code).toBe("invalid_request");
      expect(bad.body.errors).toEqual([expect.objectContaining({ param: "occurred_after" })]);
    });

    it("refuses an unknown direction with 400 naming it", async () => {
      const bad = await t.request("GET", "/v1/communications?direction=sideways", { key: listOrg.key });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].param).toBe("direction");
    });
  });
});
