import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isoDate, systemClock } from "../core/index.ts";
import { createApiKey, OPERATOR, OPERATOR_ACTOR, revokeApiKey } from "../engines/index.ts";
import { createPostgresStore, migrate, type Store } from "../store/index.ts";
import { mergeReports, type LoadReport } from "./lib/load-report.ts";
import { NODE_TS, runLoad, startListening } from "./lib/processes.ts";
import { orderOfRound } from "./lib/rounds.ts";
import { benchDatabaseUrl, startTesseraApi } from "./lib/tessera-server.ts";
import {
  generatorTargets,
  loadRow,
  numberFlag,
  target,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
} from "./lib/report.ts";
import { DEFAULT_LAG_DAYS, seedInvoiceOrg } from "./lib/seed.ts";
import { loadStats } from "./lib/stats.ts";

const ANCHOR = fileURLToPath(new URL("./lib/anchor-server.ts", import.meta.url));
const PATH = "/v1/invoices?status=overdue&per_page=25";

const SIZES = {
  full: { invoices: 1_000_000, rounds: 3, warmupS: 3, durationS: 10 },
  tiny: { invoices: 2_000, rounds: 1, warmupS: 1, durationS: 1 },
};

interface Subject {
  name: string;
  url: string;
  pid: number;
  headers: Record<string, string>;
}

interface Totals {
  load?: LoadReport;
  /** PATCHes of listed invoices made while the load ran, and the seconds they were made in. */
  writes: number;
  writeS: number;
}

/**
 * `GET /v1/invoices?status=overdue&per_page=25` on one organization with N invoices
 * on PostgreSQL, through the real server (`tessera serve --role api` in a child
 * process), against the anchor: a bare Hono handler in another child process
 * returning the same JSON. One load generator process drives each in turn, the
 * two alternating for `rounds` rounds so that a noisy neighbour hits both alike.
 */
export const listOverdue: Benchmark = {
  name: "list-overdue",
  summary: "GET /v1/invoices?status=overdue over HTTP on PostgreSQL vs a bare Hono handler",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const invoices = numberFlag(options.flags, "invoices", size.invoices);
    const rounds = numberFlag(options.flags, "rounds", size.rounds);
    const connections = numberFlag(options.flags, "connections", 32);
    const durationMs = numberFlag(options.flags, "duration", size.durationS) * 1000;
    const warmupMs = numberFlag(options.flags, "warmup", size.warmupS) * 1000;
    const writes = numberFlag(options.flags, "writes", 10);
    const databaseUrl = await benchDatabaseUrl();

    const store = createPostgresStore({ url: databaseUrl, poolSize: 2 });
    const cleanups: Array<() => Promise<void>> = [async () => store.dispose()];
    const scratch = mkdtempSync(join(tmpdir(), "tessera-bench-"));
    cleanups.push(async () => rmSync(scratch, { recursive: true, force: true }));
    try {
      await migrate(store);
      options.log(`  organization with ${invoices.toLocaleString("en-US")} invoices…`);
      const lagDays = options.flags["lag-days"] === "0" ? 0 : DEFAULT_LAG_DAYS;
      const seed = await seedInvoiceOrg(store, invoices, options.log, lagDays);
      options.log(`  ${seed.seeded ? "seeded" : "reused"} in ${(seed.seedMs / 1000).toFixed(1)} s`);
      const key = await createApiKey(store, seed.orgId, { kind: "full_access", name: "bench" }, OPERATOR);
      cleanups.unshift(
        async () => void (await revokeApiKey(store, seed.orgId, key.id, systemClock, OPERATOR_ACTOR)),
      );

      const server = await startTesseraApi(databaseUrl);
      cleanups.unshift(server.stop);
      const uncached = await startTesseraApi(databaseUrl, { env: { TESSERA_LIST_CACHE_MB: "0" } });
      cleanups.unshift(uncached.stop);
      const authorization = `Bearer ${key.secret}`;
      const body = await checkedResponse(store, server.url, authorization, seed.orgId);
      if ((await checkedResponse(store, uncached.url, authorization, seed.orgId)) !== body)
        throw new Error("the page read with the list cache off differs from the cached one");
      const bodyFile = join(scratch, "page.json");
      writeFileSync(bodyFile, body);
      const anchor = await startListening([...NODE_TS, ANCHOR, bodyFile], {});
      cleanups.unshift(anchor.stop);

      const subjects: Subject[] = [
        { name: "anchor", url: anchor.url, pid: anchor.pid, headers: {} },
        { name: "tessera", url: server.url, pid: server.pid, headers: { authorization } },
        { name: "uncached", url: uncached.url, pid: uncached.pid, headers: { authorization } },
      ];
      const writable = (JSON.parse(body) as { data: Array<{ id: string }> }).data.map(
        (invoice) => invoice.id,
      );
      const totals = new Map<string, Totals>(subjects.map((s) => [s.name, { writes: 0, writeS: 0 }]));
      for (let round = 1; round <= rounds; round++) {
        for (const subject of orderOfRound(subjects, round - 1)) {
          options.log(`  round ${round}/${rounds}: ${subject.name}`);
          const load = {
            url: subject.url + PATH,
            headers: subject.headers,
            connections,
            warmupMs,
            durationMs,
            observePid: subject.pid,
          };
          // Tessera's lists are read while invoices change: each write makes the cached pages stale.
          const writer =
            subject.name === "anchor" ? undefined : startWriter(subject.url, authorization, writable, writes);
          const report = await runLoad(load, options.log);
          const sofar = totals.get(subject.name)!;
          sofar.load = sofar.load ? mergeReports(sofar.load, report) : report;
          if (writer) {
            const made = await writer.stop();
            totals.get(subject.name)!.writes += made.writes;
            totals.get(subject.name)!.writeS += made.seconds;
          }
        }
      }
      const params = {
        invoices,
        lagDays,
        rounds,
        connections,
        durationMs,
        warmupMs,
        writesPerS: writes,
        path: PATH,
      };
      return result(totals, params, seed);
    } finally {
      for (const cleanup of cleanups) await cleanup().catch((error: unknown) => options.log(String(error)));
    }
  },
};

/**
 * PATCHes one of `ids` (an invoice on the page) `perSecond` times a second until
 * stopped, resolving to the number of writes made and the seconds they took. Each changes the invoice's
 * metadata, so every cached invoice list of the organization is stale after it.
 */
function startWriter(url: string, authorization: string, ids: string[], perSecond: number) {
  let writes = 0;
  let stopped = false;
  const started = performance.now();
  const headers = { authorization, "content-type": "application/json" };
  const loop = (async () => {
    if (perSecond <= 0 || ids.length === 0) return;
    while (!stopped) {
      const id = ids[writes % ids.length]!;
      const response = await fetch(`${url}/v1/invoices/${id}`, {
        method: "PATCH",
        headers,
        body: JSON.stringify({ metadata: { bench_write: String(writes) } }),
      });
      if (response.status !== 200) throw new Error(`PATCH /v1/invoices/${id} answered ${response.status}`);
      await response.arrayBuffer();
      writes++;
      const due = started + (writes * 1000) / perSecond;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { writes, seconds: (performance.now() - started) / 1000 };
    },
  };
}

/**
 * One real response, checked before any load: 200, and a total equal to the
 * overdue count SQL gives, so a fast wrong answer cannot pass as a result.
 */
async function checkedResponse(store: Store, url: string, authorization: string, orgId: string) {
  const response = await fetch(url + PATH, { headers: { authorization } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${PATH} answered ${response.status}: ${text}`);
  const page = JSON.parse(text) as { data: unknown[]; meta: { total: number } };
  const [row] = await store.query<{ n: number }>(
    `SELECT count(*) AS n FROM invoices
     WHERE org_id = $1 AND (status = 'overdue' OR (status = 'open' AND due_date < $2::date))`,
    [orgId, isoDate(new Date())],
  );
  if (page.meta.total !== row?.n || page.data.length !== Math.min(25, row.n)) {
    throw new Error(`meta.total ${page.meta.total} / ${page.data.length} rows, but ${row?.n} are overdue`);
  }
  return text;
}

function result(
  totals: Map<string, Totals>,
  params: { invoices: number; connections: number; path: string } & Record<string, unknown>,
  seed: { seeded: boolean; seedMs: number },
): BenchResult {
  const stats = (name: string) => {
    const t = totals.get(name)!;
    return { ...loadStats(t.load!), writesPerS: t.writeS > 0 ? t.writes / t.writeS : 0 };
  };
  const anchor = stats("anchor");
  const tessera = stats("tessera");
  const uncached = stats("uncached");
  const ratio = tessera.reqPerSec / anchor.reqPerSec;
  const writes = `${Math.round(tessera.writesPerS)} writes/s`;
  return {
    name: "list-overdue",
    description: `GET ${params.path} on ${params.invoices.toLocaleString("en-US")} invoices, ${params.connections} connections`,
    params,
    rows: [
      loadRow(`tessera (${writes})`, tessera, `${ratio.toFixed(2)}× req/s`),
      loadRow(
        `tessera, list cache off (${Math.round(uncached.writesPerS)} writes/s)`,
        uncached,
        `${(uncached.reqPerSec / anchor.reqPerSec).toFixed(2)}× req/s`,
      ),
      loadRow("anchor: bare Hono, same JSON", anchor, "1.00×"),
    ],
    targets: [
      target("median < 10 ms", tessera.medianMs, "<", 10, "ms"),
      target("p99 < 50 ms", tessera.p99Ms, "<", 50, "ms"),
      target("req/s ≥ 40 % of anchor", ratio * 100, ">=", 40, "%"),
      ...generatorTargets({ tessera, uncached, anchor }),
    ],
    details: { tessera, uncached, anchor, ratio, seeded: seed.seeded, seedS: seed.seedMs / 1000 },
  };
}
