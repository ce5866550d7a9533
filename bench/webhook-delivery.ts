import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecretBox, newId, randomBase62 } from "../core/index.ts";
import { createOrganization, recordEvents } from "../engines/index.ts";
import { createPostgresStore, migrate, type Store } from "../store/index.ts";
import { generateSecret } from "../webhooks/index.ts";
import { processCpuS, threadCpuS } from "./lib/cpu.ts";
import { startDbMeter, type DbMeter } from "./lib/db-meter.ts";
import { startListening, type ListeningProcess } from "./lib/processes.ts";
import { numberFlag, target, type Benchmark, type BenchOptions, type BenchResult } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";
import { benchDatabaseUrl } from "./lib/tessera-server.ts";

const BIN = fileURLToPath(new URL("../bin/tessera.js", import.meta.url));
const SIZES = { full: { deliveries: 20_000, samples: 300 }, tiny: { deliveries: 500, samples: 30 } };
/** graphile-worker's published figure for unbatched jobs on PostgreSQL (its README, "Performance"). */
const GRAPHILE_JOBS_PER_S = 15_600;
const SECRET = randomBase62(40);

/**
 * `tessera serve --role worker` processes on PostgreSQL delivering to a receiver in
 * this process (another process than the workers): a backlog of N deliveries drained
 * by one worker, then by two (throughput and scaling), then events committed one
 * by one to an idle worker (delay from commit to the first attempt's arrival). Each
 * drain also reports what one delivery costs the workers in CPU; with `BENCH_DB_METER=1`
 * their database connections go through a counting proxy (lib/db-meter.ts), and it
 * reports the statements sent to PostgreSQL (round trips) and the CPU of the backends
 * that served them too. The proxy's hop slows one worker's round trips, and its rate
 * (~600 against ~850–900/s on a busy machine), so it is off by default.
 */
export const webhookDelivery: Benchmark = {
  name: "webhook-delivery",
  summary: "webhook worker: deliveries/s (1 and 2 processes), commit → first attempt delay",
  async run(options: BenchOptions): Promise<BenchResult> {
    const size = options.tiny ? SIZES.tiny : SIZES.full;
    const deliveries = numberFlag(options.flags, "deliveries", size.deliveries);
    const samples = numberFlag(options.flags, "samples", size.samples);
    const databaseUrl = await benchDatabaseUrl();
    const store = createPostgresStore({ url: databaseUrl, poolSize: 4 });
    const receiver = await startReceiver();
    try {
      await migrate(store);
      // Leftovers of an earlier run must not be in this run's queue.
      await store.query("UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'pending'");
      const orgId = await endpointFor(store, receiver.url);
      const rates: number[] = [];
      const costs: DeliveryCost[] = [];
      for (const processes of [1, 2]) {
        await backlog(store, orgId, deliveries);
        receiver.reset(deliveries);
        options.log(
          `  ${processes} worker process(es): draining ${deliveries.toLocaleString("en-US")} deliveries`,
        );
        const workers = await Promise.all(Array.from({ length: processes }, () => startWorker(databaseUrl)));
        try {
          // From the moment every worker is up (their start-up is not a delivery's cost) to the last.
          const before = costReading(workers, receiver);
          await receiver.done;
          rates.push(deliveries / (receiver.lastMs() / 1000 - receiver.firstMs() / 1000));
          const cost = costBetween(before, costReading(workers, receiver));
          costs.push(cost);
          options.log(
            `    per delivery: worker ${cost.workerCpuUs.toFixed(1)} µs CPU` +
              (cost.statements === undefined
                ? ""
                : `, PostgreSQL ${cost.backendCpuUs!.toFixed(1)} µs CPU, ${cost.statements.toFixed(2)} statements`) +
              ` (over ${cost.deliveries.toLocaleString("en-US")} deliveries)`,
          );
        } finally {
          await Promise.all(workers.map((w) => w.stop()));
        }
      }
      options.log(`  commit → first attempt: ${samples} events, one at a time`);
      const delaysMs = await commitToArrival(store, databaseUrl, orgId, receiver, samples);
      return result(rates[0]!, rates[1]!, costs, delaysMs, { deliveries, samples });
    } finally {
      await store.dispose();
      await receiver.close();
    }
  },
};

interface BenchReceiver {
  url: string;
  done: Promise<void>;
  /** Requests received since the last reset. */
  received(): number;
  reset(expected: number): void;
  firstMs(): number;
  lastMs(): number;
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<BenchReceiver> {
  let expected = 0;
  let count = 0;
  let first = 0;
  let last = 0;
  let finish = () => {};
  const arrivals = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const now = performance.now();
      const id = req.headers["webhook-id"] as string;
      if (!arrivals.has(id)) arrivals.set(id, now);
      if (count++ === 0) first = now;
      last = now;
      if (count === expected) finish();
      res.end("ok");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const receiver: BenchReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    done: Promise.resolve(),
    reset(n) {
      expected = n;
      count = 0;
      receiver.done = new Promise((resolve) => (finish = resolve));
    },
    received: () => count,
    firstMs: () => first,
    lastMs: () => last,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

async function endpointFor(store: Store, url: string): Promise<string> {
  const org = await createOrganization(store, { name: `bench-webhooks-${Date.now()}` });
  const box = createSecretBox(SECRET);
  await store.query("INSERT INTO webhook_endpoints (id, org_id, url, secret) VALUES ($1, $2, $3, $4)", [
    newId("we"),
    org.id,
    url,
    box.seal(generateSecret("v1").signing),
  ]);
  return org.id;
}

/** N committed events while no worker runs: N deliveries due now. */
async function backlog(store: Store, orgId: string, n: number): Promise<void> {
  for (let done = 0; done < n; done += 500) {
    const events = Array.from({ length: Math.min(500, n - done) }, (_, i) => ({
      type: "contact.created",
      object: { id: `con_${done + i}`, name: "Bench" },
    }));
    await store.transaction((tx) => recordEvents(tx, orgId, new Date(), events));
  }
}

type Worker = ListeningProcess & { dir: string; meter?: DbMeter };

async function startWorker(databaseUrl: string): Promise<Worker> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-bench-wh-"));
  const meter = process.env.BENCH_DB_METER === "1" ? await startDbMeter(databaseUrl) : undefined;
  return startListening([process.execPath, "--no-node-snapshot", BIN, "serve", "--role", "worker"], {
    DATABASE_URL: meter?.url ?? databaseUrl,
    TESSERA_SECRET: SECRET,
    TESSERA_DATA_DIR: dir,
    TESSERA_ALLOW_PRIVATE_TARGETS: "1",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "warn",
  }).then(
    (server) => ({
      ...server,
      dir,
      meter,
      stop: async () => {
        await server.stop();
        await meter?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    }),
    async (error: unknown) => {
      await meter?.close();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    },
  );
}

/**
 * What the workers (and, when metered, their database backends) have used so far, and
 * how many deliveries have arrived.
 */
interface CostReading {
  received: number;
  workerCpuS: number;
  workerMainThreadS: number;
  database?: { statements: number; backendCpuS: number };
}

/** One delivery's cost over a drain: CPU in µs, statements (round trips) as a count. */
interface DeliveryCost {
  deliveries: number;
  workerCpuUs: number;
  workerMainThreadUs: number;
  statements?: number;
  backendCpuUs?: number;
}

function costReading(workers: Worker[], receiver: BenchReceiver): CostReading {
  const sum = (value: (w: Worker) => number) => workers.reduce((total, w) => total + value(w), 0);
  const readings = workers.map((w) => w.meter?.reading());
  return {
    received: receiver.received(),
    workerCpuS: sum((w) => processCpuS(w.pid) ?? NaN),
    workerMainThreadS: sum((w) => threadCpuS(w.pid, w.pid) ?? NaN),
    ...(readings.every((r) => r !== undefined)
      ? {
          database: {
            statements: readings.reduce((total, r) => total + r.statements, 0),
            backendCpuS: readings.reduce((total, r) => total + r.backendCpuS, 0),
          },
        }
      : {}),
  };
}

function costBetween(start: CostReading, end: CostReading): DeliveryCost {
  const deliveries = end.received - start.received;
  const perDeliveryUs = (s: number, e: number) => ((e - s) / deliveries) * 1e6;
  return {
    deliveries,
    workerCpuUs: perDeliveryUs(start.workerCpuS, end.workerCpuS),
    workerMainThreadUs: perDeliveryUs(start.workerMainThreadS, end.workerMainThreadS),
    ...(start.database && end.database
      ? {
          statements: (end.database.statements - start.database.statements) / deliveries,
          backendCpuUs: perDeliveryUs(start.database.backendCpuS, end.database.backendCpuS),
        }
      : {}),
  };
}

/** Commits events one at a time (≈ 50/s) to an idle worker; the delay until each arrives. */
async function commitToArrival(
  store: Store,
  databaseUrl: string,
  orgId: string,
  receiver: BenchReceiver,
  n: number,
) {
  receiver.reset(n);
  const worker = await startWorker(databaseUrl);
  const committedAt = new Map<string, number>();
  try {
    for (let i = 0; i < n; i++) {
      const [id] = await store.transaction((tx) =>
        recordEvents(tx, orgId, new Date(), [{ type: "contact.created", object: { id: `con_${i}` } }]),
      );
      committedAt.set(id!, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await receiver.done;
  } finally {
    await worker.stop();
  }
  return [...committedAt].map(([id, at]) => (receiver.arrivals.get(id) ?? NaN) - at);
}

function result(
  one: number,
  two: number,
  costs: DeliveryCost[],
  delaysMs: number[],
  params: { deliveries: number; samples: number },
): BenchResult {
  const delay = summarize(delaysMs);
  const scaling = two / one;
  return {
    name: "webhook-delivery",
    description: `${params.deliveries.toLocaleString("en-US")} deliveries drained, ${params.samples} latency samples`,
    params,
    rows: [
      {
        subject: "1 worker process",
        unit: "ms",
        median: 1000 / one,
        p99: 1000 / one,
        reqPerSec: one,
        versusAnchor: `${(one / GRAPHILE_JOBS_PER_S).toFixed(2)}× graphile-worker`,
        serverCpuUs: { process: costs[0]!.workerCpuUs, mainThread: costs[0]!.workerMainThreadUs },
      },
      {
        subject: "2 worker processes",
        unit: "ms",
        median: 1000 / two,
        p99: 1000 / two,
        reqPerSec: two,
        versusAnchor: `${scaling.toFixed(2)}× one process`,
        serverCpuUs: { process: costs[1]!.workerCpuUs, mainThread: costs[1]!.workerMainThreadUs },
      },
      { subject: "commit → first attempt", unit: "ms", median: delay.median, p99: delay.p99 },
      {
        subject: "reference: graphile-worker (published, unbatched)",
        unit: "ms",
        median: 1000 / GRAPHILE_JOBS_PER_S,
        p99: 1000 / GRAPHILE_JOBS_PER_S,
        reqPerSec: GRAPHILE_JOBS_PER_S,
        versusAnchor: "1.00×",
      },
    ],
    targets: [
      target("deliveries/s, 1 process ≥ 2,000", one, ">=", 2000, "/s"),
      target("2 processes ≥ 1.7× one", scaling, ">=", 1.7, "×"),
      target("median commit → first attempt < 50 ms", delay.median, "<", 50, "ms"),
    ],
    details: {
      deliveriesPerSec: { one, two },
      scaling,
      delayMs: delay,
      perDelivery: { oneProcess: costs[0], twoProcesses: costs[1] },
    },
  };
}
