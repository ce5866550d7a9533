import { createPostgresStore, migrate } from "../store/index.ts";
import { numberFlag, target, type Benchmark, type BenchOptions, type BenchResult } from "./lib/report.ts";
import { summarize } from "./lib/stats.ts";
import { benchDatabaseUrl } from "./lib/tessera-server.ts";
import { runAgainstBaseline } from "./webhook-delivery-ab.ts";
import {
  commitToArrival,
  describeCost,
  drain,
  endpointFor,
  startReceiver,
  type DeliveryCost,
} from "./lib/webhook-drain.ts";

const SIZES = { full: { deliveries: 20_000, samples: 300 }, tiny: { deliveries: 500, samples: 30 } };
/** graphile-worker's published figure for unbatched jobs on PostgreSQL (its README, "Performance"). */
const GRAPHILE_JOBS_PER_S = 15_600;

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
    if (options.flags.baseline) return runAgainstBaseline(options, databaseUrl, deliveries);
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
        options.log(
          `  ${processes} worker process(es): draining ${deliveries.toLocaleString("en-US")} deliveries`,
        );
        const drained = await drain({ store, databaseUrl, orgId, receiver, deliveries, processes });
        rates.push(drained.rate);
        costs.push(drained.cost);
        options.log(describeCost(drained.cost));
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
