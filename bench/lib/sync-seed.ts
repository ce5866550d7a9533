import type { Store } from "../../store/index.ts";

/** Each resource's table, and its id prefix. */
const TABLES: Array<[table: string, prefix: string]> = [
  ["products", "prod"],
  ["contacts", "con"],
  ["invoices", "inv"],
  ["payments", "pay"],
  ["deals", "deal"],
  ["communications", "comm"],
  ["candidates", "cand"],
  ["skills", "skl"],
];

/** Columns that must stay unique within an organization: copies get ` <n>` (or `-<n>`) appended. */
const SUFFIXED: Record<string, string> = {
  number: "'-' || g",
  sku: "'-' || g",
  email: "'.' || g",
  name: "' ' || g",
};

/**
 * Grows every resource of a seeded organization to `perResource` rows by copying its rows in SQL
 * (new ids; numbers, SKUs, emails and names suffixed with the copy's number; references kept, so
 * every copy points at a real contact, invoice or candidate). Seeding 80,000 rows through the
 * services would take minutes; this takes seconds.
 */
export async function growDemo(
  store: Store,
  orgId: string,
  perResource: number,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [table, prefix] of TABLES) {
    const [{ n } = { n: 0 }] = await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`,
      [orgId],
    );
    const copies = n > 0 ? Math.ceil(perResource / n) - 1 : 0;
    if (copies > 0) {
      const columns = (
        await store.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() ORDER BY ordinal_position`,
          [table],
        )
      ).map((row) => row.column_name);
      const values = columns.map((column) => {
        if (column === "id") return `'${prefix}_' || substr(md5(random()::text || t.id || g::text), 1, 24)`;
        const suffix = SUFFIXED[column];
        return suffix ? `t.${column} || ${suffix}` : `t.${column}`;
      });
      await store.query(
        `INSERT INTO ${table} (${columns.join(", ")})
         SELECT ${values.join(", ")} FROM ${table} t CROSS JOIN generate_series(1, ${copies}) g WHERE t.org_id = $1`,
        [orgId],
      );
    }
    const [{ n: total } = { n: 0 }] = await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`,
      [orgId],
    );
    counts[table] = total;
  }
  return counts;
}
