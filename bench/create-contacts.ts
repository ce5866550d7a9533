import { fileURLToPath } from "node:url";
import { systemClock } from "../core/index.ts";
import {
  createApiKey,
  createOrganization,
  OPERATOR,
  OPERATOR_ACTOR,
  revokeApiKey,
} from "../engines/index.ts";
import { createPostgresStore, migrate, type Store } from "../store/index.ts";
import { mergeReports, type LoadReport } from "./lib/load-report.ts";
import { NODE_TS, runLoad, startListening, type ListeningProcess } from "./lib/processes.ts";
import { orderOfRound } from "./lib/rounds.ts";
import {
  generatorTargets,
  loadRow,
  numberFlag,
  target,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
} from "./lib/report.ts";
import { loadStats } from "./lib/stats.ts";
import { benchDatabaseUrl, startTesseraApi } from "./lib/tessera-server.ts";

const ANCHOR = fileURLToPath(new URL("./lib/anchor-writer.ts", import.meta.url));
const SIZES = {
  full: { durationS: 10, rounds: 3 },
  tiny: { durationS: 1, rounds: 1 },
};
/** The API role's default pool (TESSERA_DB_POOL_SIZE); the anchor gets the same. */
const POOL_SIZE = 10;

interface Subject {
  name: "anchor" | "tessera";
  server: ListeningProcess;
  orgId: string;
  secret: string;
  load?: LoadReport;
}

/**
 * `POST /v1/contacts` through the real server (`tessera serve --role api` on
 * PostgreSQL, a child process) at 32 connections, each create the contact and its
 * `contact.created` event in one transaction, every body a different contact. The
 * anchor is a bare Hono handler writing the same two rows in one transaction with
 * postgres.js: what the database allows before validation, auth, idempotency and
 * rendering. Both are loaded in alternating rounds, each in an organization of its
 * own; after the run, every organization must hold exactly one event per contact and
 * at least as many contacts as creates were answered 201.
 */
export const createContacts: Benchmark = {
  name: "create-contacts",
  summary: "POST /v1/contacts (write + event in one transaction) on PostgreSQL vs bare Hono + SQL",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const durationMs = numberFlag(options.flags, "duration", size.durationS) * 1000;
    const rounds = Math.max(1, Math.round(numberFlag(options.flags, "rounds", size.rounds)));
    const connections = numberFlag(options.flags, "connections", 32);
    const databaseUrl = await benchDatabaseUrl();
    const store = createPostgresStore({ url: databaseUrl, poolSize: 2 });
    const cleanups: Array<() => Promise<void>> = [() => store.dispose()];
    try {
      await migrate(store);
      const subjects: Subject[] = [];
      for (const name of ["anchor", "tessera"] as const) {
        const org = await createOrganization(store, { name: `bench-create-${name}-${Date.now()}` });
        const key = await createApiKey(store, org.id, { kind: "full_access", name: "bench" }, OPERATOR);
        cleanups.unshift(() =>
          revokeApiKey(store, org.id, key.id, systemClock, OPERATOR_ACTOR).then(() => undefined),
        );
        const server =
          name === "tessera"
            ? await startTesseraApi(databaseUrl)
            : await startListening([...NODE_TS, ANCHOR, databaseUrl, org.id, String(POOL_SIZE)], {});
        cleanups.unshift(server.stop);
        subjects.push({ name, server, orgId: org.id, secret: key.secret });
      }
      options.log(
        `  anchor, tessera: ${rounds} round(s) of ${(durationMs / rounds / 1000).toFixed(1)} s each`,
      );
      for (let round = 0; round < rounds; round++) {
        for (const subject of orderOfRound(subjects, round)) {
          const report = await runLoad(
            {
              url: `${subject.server.url}/v1/contacts`,
              headers: { authorization: `Bearer ${subject.secret}` },
              connections,
              warmupMs: 0,
              durationMs: durationMs / rounds,
              observePid: subject.server.pid,
              method: "POST",
              // Round and sequence number: every body a new contact.
              bodyTemplate: JSON.stringify({
                name: `Contact ${round}-{n}`,
                email: `contact${round}-{n}@bench.example`,
              }),
            },
            options.log,
          );
          subject.load = subject.load ? mergeReports(subject.load, report) : report;
        }
      }
      for (const subject of subjects)
        await expectOneEventPerRow(store, subject.orgId, subject.load!.requests);
      const [anchor, tessera] = subjects.map((s) => s.load!) as [LoadReport, LoadReport];
      return result(tessera, anchor, { durationMs, rounds, connections });
    } finally {
      for (const cleanup of cleanups) await cleanup().catch((error: unknown) => options.log(String(error)));
    }
  },
};

/**
 * Every answered create left its row, and every row exactly one `contact.created`
 * event: nothing fast and wrong. (A create in flight when a round ended may have
 * landed unanswered, so rows may outnumber the answers, never the reverse.)
 */
async function expectOneEventPerRow(store: Store, orgId: string, answered: number): Promise<void> {
  const [row] = await store.query<{ contacts: number; events: number }>(
    `SELECT (SELECT count(*) FROM contacts WHERE org_id = $1) AS contacts,
            (SELECT count(*) FROM events WHERE org_id = $1 AND type = 'contact.created') AS events`,
    [orgId],
  );
  if (!row || row.contacts < answered || row.events !== row.contacts) {
    throw new Error(`${answered} answered creates left ${row?.contacts} contacts and ${row?.events} events`);
  }
}

function result(
  tesseraReport: LoadReport,
  anchorReport: LoadReport,
  params: { durationMs: number; rounds: number; connections: number },
): BenchResult {
  const tessera = loadStats(tesseraReport);
  const anchor = loadStats(anchorReport);
  const ratio = tessera.reqPerSec / anchor.reqPerSec;
  return {
    name: "create-contacts",
    description: `POST /v1/contacts for ${params.durationMs / 1000} s each, ${params.connections} connections`,
    params,
    rows: [
      loadRow("tessera", tessera, `${ratio.toFixed(2)}× creates/s`),
      loadRow("anchor: bare Hono + same 2 INSERTs", anchor, "1.00×"),
    ],
    targets: [
      target("creates/s ≥ 1,000", tessera.reqPerSec, ">=", 1000, "/s"),
      ...generatorTargets({ tessera, anchor }),
    ],
    details: { tessera, anchor, ratio },
  };
}
