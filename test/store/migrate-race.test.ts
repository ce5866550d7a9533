import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStore, listMigrations, migrate, type Store } from "../../store/index.ts";

/**
 * Several nodes started at once on an empty database (`systemctl enable --now tessera-api@8787
 * tessera-api@8788 tessera-worker@9101`, docs/deploy) all migrate it: one applies each migration,
 * the others wait and skip, and none fails. PostgreSQL only: PGlite belongs to one process.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)("migrations on an empty PostgreSQL database", () => {
  const name = `tessera_race_${Math.random().toString(36).slice(2, 10)}`;
  const on = (database: string) => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    return url.href;
  };
  let admin: postgres.Sql;
  const stores: Store[] = [];

  beforeAll(async () => {
    admin = postgres(on("postgres"), { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.dispose()));
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("applies each migration once when several nodes start together, and none fails", async () => {
    for (let i = 0; i < 6; i++) stores.push(createPostgresStore({ url: on(name), poolSize: 1 }));
    const applied = await Promise.all(stores.map((store) => migrate(store)));
    const all = listMigrations().map((migration) => migration.version);
    expect(applied.flat().sort((a, b) => a - b)).toEqual(all);
    const rows = await stores[0]!.query<{ version: number }>(
      "SELECT version FROM tessera_migrations ORDER BY version",
    );
    expect(rows.map((row) => row.version)).toEqual(all);
  });
});
