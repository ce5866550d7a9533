import { describe, expect, it } from "vitest";
import { FakeClock } from "../../core/index.ts";
import { createOrganization, seedDemo } from "../../engines/index.ts";
import { storeKinds } from "../helpers/stores.ts";

describe.each(storeKinds())("the demo seed on $name", (kind) => {
  it("issues each invoice 30 days before it falls due, never after the moment of seeding", async () => {
    await using store = await kind.open();
    const clock = new FakeClock(new Date("2026-03-15T10:00:00Z"));
    const org = await createOrganization(store, { name: `seed-${Date.now()}`, plan: "free" });
    await seedDemo(store, clock, org.id);
    const rows = await store.query<{ due_date: string; issued_at: Date | null; status: string }>(
      "SELECT due_date::text AS due_date, issued_at, status FROM invoices WHERE org_id = $1",
      [org.id],
    );
    const issued = rows.filter((row) => row.issued_at !== null);
    expect(issued.length).toBeGreaterThan(0);
    const now = clock.nowMs();
    for (const row of issued) {
      const due = Date.parse(`${row.due_date}T00:00:00Z`);
      const expected = Math.min(now, due + (now % 86_400_000) - 30 * 86_400_000);
      expect(new Date(row.issued_at!).getTime(), JSON.stringify(row)).toBe(expected);
    }
    // Some were issued well before the seed, so a 90-day window does not count them all.
    expect(issued.some((row) => new Date(row.issued_at!).getTime() < now - 60 * 86_400_000)).toBe(true);
  });
});
