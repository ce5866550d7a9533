import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, FakeClock, loadConfig, silentLogger } from "../../core/index.ts";
import {
  computeSnapshot,
  createOrganization,
  createResourceServices,
  createScheduler,
  intelligenceJobs,
  latestSnapshot,
  listSnapshots,
  purgeSnapshots,
  refreshSnapshot,
  SnapshotSchema,
  type AnyResourceService,
} from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Intelligence snapshots computed from hand-built data whose every figure is known:
 * several currencies, invoices overdue and open by due date at a fixed clock, partial
 * payments and invoices paid by hand, deals in every stage, candidates in several
 * statuses, skills verified inside and outside the 30-day window.
 */
const NOW = "2025-03-15T10:00:00Z";
const DAY_MS = 86_400_000;

const EMPTY = {
  finance: {
    outstanding: {},
    outstanding_count: 0,
    overdue: {},
    overdue_count: 0,
    paid_30_days: {},
    invoiced_90_days: {},
    dso_days: {},
  },
  growth: {
    contacts: 0,
    new_contacts_30_days: 0,
    open_deals_by_stage: { lead: 0, qualified: 0, proposal: 0 },
    pipeline_value_by_stage: { lead: {}, qualified: {}, proposal: {} },
    deals_won: 0,
    deals_lost: 0,
    win_rate: null,
  },
  talent: {
    candidates_by_status: { applied: 0, screening: 0, interview: 0, offer: 0, hired: 0, rejected: 0 },
    skills_verified_30_days: 0,
  },
};

describe.each(storeKinds())("intelligence snapshots on $name", (kind) => {
  let store: Store;
  const clock = new FakeClock(NOW);
  let services: Map<string, AnyResourceService>;
  let orgA: string;
  let orgB: string;
  const svc = (name: string) => services.get(name)!;
  const at = (instant: string) => clock.set(instant);

  /** Creates an open invoice issued at `issuedAt`. */
  async function invoice(orgId: string, issuedAt: string, amount: string, currency: string, due: string) {
    at(issuedAt);
    const created = await svc("invoices").create(orgId, {
      client: "Acme",
      amount,
      currency,
      due_date: due,
    });
    return created.id as string;
  }
  async function pay(orgId: string, invoiceId: string, when: string, amount: string) {
    at(when);
    await svc("payments").create(orgId, { invoice_id: invoiceId, amount, method: "bank_transfer" });
  }
  async function patch(name: string, orgId: string, id: string, when: string, body: object) {
    at(when);
    await svc(name).update(orgId, id, body);
  }

  async function buildFinance(orgId: string) {
    // EUR: 1000.1 overdue since 03-01 with 250.5 paid; 500.2 open; 400 issued > 90 days ago,
    // recorded overdue by the scheduler; 80 paid 30 by payment then marked paid by hand.
    const inv1 = await invoice(orgId, "2025-02-01T09:00:00Z", "1000.1", "EUR", "2025-03-01");
    await pay(orgId, inv1, "2025-03-01T12:00:00Z", "250.5");
    await invoice(orgId, "2025-03-10T09:00:00Z", "500.2", "EUR", "2025-03-20");
    const inv5 = await invoice(orgId, "2024-12-01T09:00:00Z", "400", "EUR", "2024-12-31");
    await store.query("UPDATE invoices SET status = 'overdue' WHERE id = $1", [inv5]);
    const inv7 = await invoice(orgId, "2025-03-01T09:00:00Z", "80", "EUR", "2025-03-31");
    await pay(orgId, inv7, "2025-03-08T09:00:00Z", "30");
    await patch("invoices", orgId, inv7, "2025-03-10T09:00:00Z", { status: "paid" });
    // A draft and a voided invoice count nowhere.
    at("2025-03-02T09:00:00Z");
    await svc("invoices").create(orgId, {
      client: "Acme",
      amount: "70",
      currency: "EUR",
      due_date: "2025-04-01",
      status: "draft",
    });
    const inv10 = await invoice(orgId, "2025-03-03T09:00:00Z", "60", "EUR", "2025-04-01");
    await patch("invoices", orgId, inv10, "2025-03-04T09:00:00Z", { status: "void" });

    // USD: 300 due yesterday (stored open: overdue by date); 200 due today (not overdue);
    // 999 with 99 paid outside the window; 50 paid by hand outside the window.
    await invoice(orgId, "2025-02-20T09:00:00Z", "300", "USD", "2025-03-14");
    await invoice(orgId, "2025-03-01T09:00:00Z", "200", "USD", "2025-03-15");
    const inv8 = await invoice(orgId, "2025-01-10T09:00:00Z", "999", "USD", "2025-04-30");
    await pay(orgId, inv8, "2025-01-20T09:00:00Z", "99");
    const inv11 = await invoice(orgId, "2025-01-25T09:00:00Z", "50", "USD", "2025-02-25");
    await patch("invoices", orgId, inv11, "2025-02-01T09:00:00Z", { status: "paid" });

    // GBP: paid in full by one payment inside the window.
    const inv6 = await invoice(orgId, "2025-03-01T09:00:00Z", "120", "GBP", "2025-03-31");
    await pay(orgId, inv6, "2025-03-05T09:00:00Z", "120");

    // CHF: old and unpaid; nothing invoiced in CHF for 90 days, so its DSO is null.
    await invoice(orgId, "2024-11-01T09:00:00Z", "700", "CHF", "2024-11-30");
  }

  async function buildGrowth(orgId: string) {
    for (const when of ["2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z", "2025-02-13T09:59:59Z"]) {
      at(when);
      await svc("contacts").create(orgId, { name: "Old" });
    }
    for (const when of ["2025-03-01T00:00:00Z", "2025-03-15T09:00:00Z"]) {
      at(when);
      await svc("contacts").create(orgId, { name: "New" });
    }
    at("2025-02-01T00:00:00Z");
    const deal = async (value: string, currency: string, stage: string) =>
      (await svc("deals").create(orgId, { title: "D", value, currency, stage })).id as string;
    await deal("100", "EUR", "lead");
    await deal("50.5", "EUR", "lead");
    await deal("70", "USD", "lead");
    await deal("1000", "USD", "qualified");
    await deal("2000", "EUR", "proposal");
    for (const id of [await deal("10", "EUR", "proposal"), await deal("20", "USD", "proposal")])
      await svc("deals").update(orgId, id, { stage: "won" });
    await svc("deals").update(orgId, await deal("30", "EUR", "lead"), { stage: "lost" });
  }

  async function buildTalent(orgId: string) {
    at("2025-01-10T00:00:00Z");
    let n = 0;
    const candidate = async (path: string[]) => {
      const created = await svc("candidates").create(orgId, {
        name: "C",
        email: `c${n++}-${orgId}@example.com`,
        position: "Engineer",
      });
      for (const status of path) await svc("candidates").update(orgId, created.id as string, { status });
      return created.id as string;
    };
    const c1 = await candidate([]);
    await candidate([]);
    await candidate(["screening"]);
    await candidate(["screening", "interview", "offer"]);
    await candidate(["screening", "interview", "offer", "hired"]);
    await candidate(["screening", "rejected"]);
    const skill = async (name: string, verifiedAt?: string) => {
      const created = await svc("skills").create(orgId, { candidate_id: c1, name });
      if (verifiedAt) await patch("skills", orgId, created.id as string, verifiedAt, { status: "verified" });
    };
    await skill("TypeScript", "2025-03-01T00:00:00Z");
    await skill("SQL", "2025-03-15T09:59:00Z");
    await skill("Go", "2025-02-13T09:59:59Z");
    await skill("Rust");
  }

  beforeAll(async () => {
    store = await kind.open();
    services = createResourceServices(store, clock);
    const name = () => `intel-${Math.random().toString(36).slice(2, 12)}`;
    orgA = (await createOrganization(store, { name: name() })).id;
    orgB = (await createOrganization(store, { name: name() })).id;
    await buildFinance(orgA);
    await buildGrowth(orgA);
    await buildTalent(orgA);
    // The other organization's data is everywhere orgA's is, and must never count for it.
    await buildFinance(orgB);
    await buildGrowth(orgB);
    await buildTalent(orgB);
    at(NOW);
  });
  afterAll(() => store.dispose());

  const EXPECTED = {
    finance: {
      outstanding: { EUR: 1649.8, USD: 1400, CHF: 700 },
      outstanding_count: 7,
      overdue: { EUR: 1149.6, USD: 300, CHF: 700 },
      overdue_count: 4,
      paid_30_days: { EUR: 330.5, GBP: 120 },
      invoiced_90_days: { EUR: 1580.3, USD: 1549, GBP: 120 },
      // EUR 1649.8 / 1580.3 × 90 = 93.958…; USD 1400 / 1549 × 90 = 81.342…
      dso_days: { CHF: null, EUR: 94, GBP: 0, USD: 81.3 },
    },
    growth: {
      contacts: 5,
      new_contacts_30_days: 2,
      open_deals_by_stage: { lead: 3, qualified: 1, proposal: 1 },
      pipeline_value_by_stage: {
        lead: { EUR: 150.5, USD: 70 },
        qualified: { USD: 1000 },
        proposal: { EUR: 2000 },
      },
      deals_won: 2,
      deals_lost: 1,
      win_rate: 0.6667,
    },
    talent: {
      candidates_by_status: { applied: 2, screening: 1, interview: 0, offer: 1, hired: 1, rejected: 1 },
      skills_verified_30_days: 2,
    },
  };

  it("computes every figure exactly at a fixed instant, per currency, from this organization only", async () => {
    expect(await computeSnapshot(store, orgA, new Date(NOW))).toEqual(EXPECTED);
    expect(await computeSnapshot(store, orgB, new Date(NOW))).toEqual(EXPECTED);
  });

  it("measures overdue and the windows from the given instant, not from the clock", async () => {
    // A day later the 200 USD due on 03-15 is overdue too, and the 03-01 TypeScript skill
    // and the 03-01 contact are still inside their 30 days.
    const later = await computeSnapshot(store, orgA, new Date(Date.parse(NOW) + DAY_MS));
    expect(later.finance.overdue).toEqual({ EUR: 1149.6, USD: 500, CHF: 700 });
    expect(later.finance.overdue_count).toBe(5);
    expect(later.growth.new_contacts_30_days).toBe(2);
    expect(later.talent.skills_verified_30_days).toBe(2);
  });

  it("gives an organization without data zeros, empty money maps and a null win rate", async () => {
    const empty = await createOrganization(store, { name: `intel-empty-${Date.now()}` });
    expect(await computeSnapshot(store, empty.id, new Date(NOW))).toEqual(EMPTY);
    expect(await latestSnapshot(store, empty.id)).toBeNull();
  });

  it("stores a refresh as the newest snapshot and returns the API object", async () => {
    at(NOW);
    const snapshot = await refreshSnapshot(store, clock, orgA);
    expect(SnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot).toMatchObject({
      object: "intelligence_snapshot",
      computed_at: NOW,
      created_at: NOW,
      updated_at: NOW,
      metadata: {},
      ...EXPECTED,
    });
    expect(snapshot.id).toMatch(/^snap_[0-9A-Za-z]+$/);
    expect(await latestSnapshot(store, orgA)).toEqual(snapshot);
  });

  it("keeps history: lists newest first, pages, and the latest wins a tie of instants", async () => {
    const org = (await createOrganization(store, { name: `intel-hist-${Date.now()}` })).id;
    const ids: string[] = [];
    for (let hour = 0; hour < 5; hour++) {
      at(new Date(Date.parse(NOW) + hour * 3_600_000).toISOString());
      ids.push((await refreshSnapshot(store, clock, org)).id);
    }
    ids.push((await refreshSnapshot(store, clock, org)).id); // same instant as the previous one
    const newest = [...ids].reverse();
    const page = (n: number, descending = true) =>
      listSnapshots(store, org, {
        page: n,
        perPage: 4,
        sort: { field: "created_at", descending },
        filters: {},
      });
    expect((await page(1)).data.map((s) => s.id)).toEqual(newest.slice(0, 4));
    expect((await page(2)).data.map((s) => s.id)).toEqual(newest.slice(4));
    expect((await page(2)).meta).toEqual({ total: 6, page: 2, per_page: 4 });
    expect((await page(1, false)).data.map((s) => s.id)).toEqual(ids.slice(0, 4));
    expect((await latestSnapshot(store, org))?.id).toBe(ids[5]);
    at(NOW);
  });

  it("purges snapshots past retention but always keeps an organization's newest", async () => {
    const org = (await createOrganization(store, { name: `intel-purge-${Date.now()}` })).id;
    for (const when of ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"]) {
      at(when);
      await refreshSnapshot(store, clock, org);
    }
    const kept = await latestSnapshot(store, org);
    await purgeSnapshots(store, new Date("2024-02-15T00:00:00Z"));
    const left = await listSnapshots(store, org, {
      page: 1,
      perPage: 10,
      sort: { field: "created_at", descending: true },
      filters: {},
    });
    expect(left.data.map((s) => s.computed_at)).toEqual(["2024-03-01T00:00:00Z"]);
    await purgeSnapshots(store, new Date(NOW));
    expect(await latestSnapshot(store, org)).toEqual(kept);
    at(NOW);
  });

  it("refreshes every organization's snapshot on a scheduler tick", async () => {
    const config = loadConfig({ TESSERA_DATA_DIR: "/nonexistent" });
    // A tick is claimed once per store (scheduled_runs), and PostgreSQL outlives a run: pick a
    // minute of the same day that no earlier run is likely to have claimed.
    const tickAt = new Date(Date.parse(NOW) + (1 + Math.floor(Math.random() * 780)) * 60_000);
    const scheduler = createScheduler({
      store,
      clock: new FakeClock(tickAt),
      log: silentLogger,
      jobs: intelligenceJobs(config),
    });
    expect(await scheduler.tick("refresh-intelligence-snapshots", tickAt)).toBe("ran");
    await scheduler.dispose();
    for (const org of [orgA, orgB]) {
      const latest = await latestSnapshot(store, org);
      expect(latest?.computed_at).toBe(tickAt.toISOString().replace(".000Z", "Z"));
      expect(latest?.finance.overdue).toEqual({ EUR: 1149.6, USD: 300, CHF: 700 });
    }
    const runs = await store.query<{ error: string | null }>(
      "SELECT error FROM scheduled_runs WHERE job = 'refresh-intelligence-snapshots' AND tick = $1::timestamptz",
      [tickAt.toISOString()],
    );
    expect(runs).toEqual([{ error: null }]);
  });
});

describe("snapshot configuration", () => {
  const env = (extra: Record<string, string>) => ({ TESSERA_DATA_DIR: "/nonexistent", ...extra });

  it("refreshes hourly and keeps 90 days unless the operator says otherwise", () => {
    const config = loadConfig(env({}));
    expect(config.snapshotSchedule).toBe("0 * * * *");
    expect(config.snapshotRetentionDays).toBe(90);
    const custom = loadConfig(
      env({ TESSERA_SNAPSHOT_SCHEDULE: "*/15 * * * *", TESSERA_SNAPSHOT_RETENTION_DAYS: "7" }),
    );
    expect(custom.snapshotSchedule).toBe("*/15 * * * *");
    expect(custom.snapshotRetentionDays).toBe(7);
    expect(intelligenceJobs(custom)[0]!.schedule).toBe("*/15 * * * *");
  });

  it("refuses a schedule that is not a cron expression, naming the variable", () => {
    for (const bad of ["hourly", "0 25 * * *", "* * * *", "*/0 * * * *"]) {
      expect(() => loadConfig(env({ TESSERA_SNAPSHOT_SCHEDULE: bad }))).toThrow(ConfigError);
      expect(() => loadConfig(env({ TESSERA_SNAPSHOT_SCHEDULE: bad }))).toThrow(/TESSERA_SNAPSHOT_SCHEDULE/);
    }
    expect(() => loadConfig(env({ TESSERA_SNAPSHOT_RETENTION_DAYS: "0" }))).toThrow(ConfigError);
  });
});
