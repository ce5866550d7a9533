import { fileURLToPath } from "node:url";
import { systemClock } from "../core/index.ts";
import { createApiKey, createOrganization, revokeApiKey } from "../engines/index.ts";
import { createPostgresStore, migrate, type Store } from "../store/index.ts";
import type { LoadReport } from "./lib/load.ts";
import { NODE_TS, runLoad, startListening } from "./lib/processes.ts";
import { numberFlag, target, type Benchmark, type BenchOptions, type BenchResult } from "./lib/report.ts";
import { loadStats } from "./lib/stats.ts";
import { benchDatabaseUrl, startTesseraApi } from "./lib/tessera-server.ts";

const ANCHOR = fileURLToPath(new URL("./lib/anchor-writer.ts", import.meta.url));
const SIZES = { full: { contacts: 10_000 }, tiny: { contacts: 200 } };
/** The API role's default pool (TESSERA_DB_POOL_SIZE); the anchor gets the same. */
const POOL_SIZE = 10;

/**
 * `POST /v1/contacts` through the real server (`tessera serve --role api` on
 * PostgreSQL, a child process): N creates at 32 connections, each the contact and
 * its `contact.created` event in one transaction. The anchor is a bare Hono handler
 * writing the same two rows in one transaction with postgres.js: what the database
 * allows before validation, auth, idempotency and rendering. After the run, the
 * benchmark checks that every create left exactly one row and one event.
 */
export const createContacts: Benchmark = {
  name: "create-contacts",
  summary: "POST /v1/contacts (write + event in one transaction) on PostgreSQL vs bare Hono + SQL",
  async run(options: BenchOptions): Promise<BenchResult> {
    const contacts = numberFlag(options.flags, "contacts", (options.tiny ? SIZES.tiny : SIZES.full).contacts);
    const connections = numberFlag(options.flags, "connections", 32);
    const databaseUrl = await benchDatabaseUrl();
    const store = createPostgresStore({ url: databaseUrl, poolSize: 2 });
    const cleanups: Array<() => Promise<void>> = [() => store.dispose()];
    try {
      await migrate(store);
      const runs: Record<string, { report: LoadReport; orgId: string }> = {};
      for (const subject of ["anchor", "tessera"] as const) {
        const org = await createOrganization(store, { name: `bench-create-${subject}-${Date.now()}` });
        const key = await createApiKey(store, org.id, { kind: "full_access", name: "bench" });
        cleanups.unshift(() => revokeApiKey(store, org.id, key.id, systemClock).then(() => undefined));
        const server =
          subject === "tessera"
            ? await startTesseraApi(databaseUrl)
            : await startListening([...NODE_TS, ANCHOR, databaseUrl, org.id, String(POOL_SIZE)], {});
        try {
          options.log(`  ${subject}: ${contacts.toLocaleString("en-US")} creates`);
          const report = await runLoad({
            url: `${server.url}/v1/contacts`,
            headers: { authorization: `Bearer ${key.secret}` },
            connections,
            warmupMs: 0,
            durationMs: 0,
            observePid: server.pid,
            method: "POST",
            bodyTemplate: JSON.stringify({ name: "Contact {n}", email: "contact{n}@bench.example" }),
            totalRequests: contacts,
          });
          runs[subject] = { report, orgId: org.id };
        } finally {
          await server.stop();
        }
        await expectOneEventPerRow(store, org.id, contacts);
      }
      return result(runs.tessera!.report, runs.anchor!.report, { contacts, connections });
    } finally {
      for (const cleanup of cleanups) await cleanup().catch((error: unknown) => options.log(String(error)));
    }
  },
};

/** Every create left its row and exactly one `contact.created` event: nothing fast and wrong. */
async function expectOneEventPerRow(store: Store, orgId: string, expected: number): Promise<void> {
  const [row] = await store.query<{ contacts: number; events: number }>(
    `SELECT (SELECT count(*) FROM contacts WHERE org_id = $1) AS contacts,
            (SELECT count(*) FROM events WHERE org_id = $1 AND type = 'contact.created') AS events`,
    [orgId],
  );
  if (row?.contacts !== expected || row.events !== expected) {
    throw new Error(`${expected} creates left ${row?.contacts} contacts and ${row?.events} events`);
  }
}

function result(
  tesseraReport: LoadReport,
  anchorReport: LoadReport,
  params: { contacts: number; connections: number },
): BenchResult {
  const tessera = loadStats(tesseraReport);
  const anchor = loadStats(anchorReport);
  const ratio = tessera.reqPerSec / anchor.reqPerSec;
  return {
    name: "create-contacts",
    description: `POST /v1/contacts ×${params.contacts.toLocaleString("en-US")}, ${params.connections} connections`,
    params,
    rows: [
      {
        subject: "tessera",
        unit: "ms",
        median: tessera.medianMs,
        p99: tessera.p99Ms,
        reqPerSec: tessera.reqPerSec,
        versusAnchor: `${ratio.toFixed(2)}× creates/s`,
      },
      {
        subject: "anchor: bare Hono + same 2 INSERTs",
        unit: "ms",
        median: anchor.medianMs,
        p99: anchor.p99Ms,
        reqPerSec: anchor.reqPerSec,
        versusAnchor: "1.00×",
      },
    ],
    targets: [target("creates/s ≥ 1,000", tessera.reqPerSec, ">=", 1000, "/s")],
    details: { tessera, anchor, ratio },
  };
}
