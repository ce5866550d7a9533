import { createPgliteStore, createPostgresStore, migrate, type Store } from "../../store/index.ts";

/**
 * The stores a suite runs on: PGlite always, PostgreSQL too when TEST_DATABASE_URL
 * is set (Hono's `runTest({ newRouter })` pattern). Suites share one migrated
 * database per kind and isolate themselves by creating their own organizations.
 */
export interface StoreKind {
  name: string;
  open(): Promise<Store>;
}

export function storeKinds(): StoreKind[] {
  const kinds: StoreKind[] = [{ name: "pglite", open: () => migrated(createPgliteStore()) }];
  const url = process.env.TEST_DATABASE_URL;
  if (url)
    kinds.push({
      name: "postgres",
      open: () => migrated(Promise.resolve(createPostgresStore({ url, poolSize: 4 }))),
    });
  return kinds;
}

async function migrated(opening: Promise<Store>): Promise<Store> {
  const store = await opening;
  await migrate(store);
  return store;
}
