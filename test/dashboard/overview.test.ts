import { describe, expect, it } from "vitest";
import { seedDemo } from "../../engines/index.ts";
import { formatMoney } from "../../dashboard/overview.ts";
import { useTestApp } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The overview at `/`: the intelligence snapshot's figures at the moment of the visit (the same
 * numbers `POST /v1/intelligence/snapshots` computes), cash collected per week as a chart with a
 * table, and every figure a link to the filtered list behind it.
 */
describe.each(storeKinds())("the dashboard's overview on $name", (kind) => {
  const t = useTestApp(kind);

  it("shows the snapshot's figures, each linking to its list", async () => {
    const org = await t.newOrg();
    await seedDemo(t.store, t.clock, org.id);
    const viewer = await signedInMember(t, org.id, "viewer");
    const snapshot = (await t.request("POST", "/v1/intelligence/snapshots", { key: org.key })).body;
    const page = await t.request("GET", "/", { headers: { cookie: viewer.cookie } });
    expect(page.status).toBe(200);

    const overdue = Object.entries(snapshot.finance.overdue as Record<string, number>);
    expect(overdue.length).toBeGreaterThan(0);
    for (const [currency, amount] of overdue) expect(page.text).toContain(formatMoney(amount, currency));
    expect(page.text).toContain(`(${snapshot.finance.overdue_count} invoice`);
    expect(page.text).toContain('href="/data/invoices?status=overdue"');
    expect(page.text).toContain('href="/data/invoices?status=open,overdue"');
    for (const [stage, count] of Object.entries(
      snapshot.growth.open_deals_by_stage as Record<string, number>,
    )) {
      expect(page.text).toContain(`href="/data/deals?stage=${stage}"`);
      expect(page.text).toMatch(new RegExp(`>${count} deals?`));
    }
    for (const status of Object.keys(snapshot.talent.candidates_by_status)) {
      expect(page.text).toContain(`href="/data/candidates?status=${status}"`);
    }
    // Cash per week: one chart per currency received, its figures also as a table.
    expect(page.text).toMatch(/Cash collected per week in [A-Z]{3}/);
    expect(page.text.match(/Week of \d{4}-\d{2}-\d{2}/g)!.length).toBeGreaterThanOrEqual(12);
    expect(page.text).not.toContain("Get started");
  });

  it("greets a new organization with where to start", async () => {
    const org = await t.newOrg();
    const owner = await signedInMember(t, org.id, "owner");
    const page = await t.request("GET", "/", { headers: { cookie: owner.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Get started");
    expect(page.text).toContain("No money received in the last 12 weeks.");
  });

  it("writes money as its currency does, a code Intl does not know by its letters, and no code at all as stored", () => {
    expect(formatMoney(1250.5, "EUR")).toBe("€1,250.50");
    expect(formatMoney(3, "XXQ")).toBe("XXQ\u00a03.00");
    expect(formatMoney(3, "EURO")).toBe("3 EURO");
  });
});
