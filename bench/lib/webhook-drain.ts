import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSecretBox, newId, randomBase62 } from "../../core/index.ts";
import { createOrganization, recordEvents } from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import { generateSecret } from "../../webhooks/index.ts";
import { processCpuS, threadCpuS } from "./cpu.ts";
import { startDbMeter, type DbMeter } from "./db-meter.ts";
import { startListening, type ListeningProcess } from "./processes.ts";

/**
 * The parts of the webhook-delivery benchmark that its two runs share (webhook-delivery.ts, one
 * tree; webhook-delivery-ab.ts, this tree against a --baseline tree): the receiver, the backlog,
 * the workers, draining and what a delivery cost.
 */
const BIN = fileURLToPath(new URL("../../bin/tessera.js", import.meta.url));
const SECRET = randomBase62(40);

export interface DrainOptions {
  store: Store;
  databaseUrl: string;
  orgId: string;
  receiver: BenchReceiver;
  deliveries: number;
  processes: number;
  /** The `bin/tessera.js` to run (another checkout's for `--baseline`); this tree's by default. */
  bin?: string;
  /** Node flags for the workers (`--cpu-prof`…). */
  nodeArgs?: string[];
  /** Environment for the workers beside the bench's own. */
  env?: Record<string, string>;
}

/** A backlog of `deliveries`, drained by `processes` workers: deliveries/s and what one cost. */
export async function drain(options: DrainOptions): Promise<{ rate: number; cost: DeliveryCost }> {
  const { store, receiver, deliveries } = options;
  await backlog(store, options.orgId, deliveries);
  receiver.reset(deliveries);
  const workers = await Promise.all(
    Array.from({ length: options.processes }, () =>
      startWorker(options.databaseUrl, options.bin, options.nodeArgs, options.env),
    ),
  );
  try {
    // From the moment every worker is up (their start-up is not a delivery's cost) to the last.
    const before = costReading(workers, receiver);
    await receiver.done;
    const rate = deliveries / (receiver.lastMs() / 1000 - receiver.firstMs() / 1000);
    return { rate, cost: costBetween(before, costReading(workers, receiver)) };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

export function describeCost(cost: DeliveryCost): string {
  return (
    `    per delivery: worker ${cost.workerCpuUs.toFixed(1)} µs CPU` +
    (cost.statements === undefined
      ? ""
      : `, PostgreSQL ${cost.backendCpuUs!.toFixed(1)} µs CPU, ${cost.statements.toFixed(2)} statements`) +
    `; the receiver ${cost.receiverCpuUs.toFixed(1)} µs (over ${cost.deliveries.toLocaleString("en-US")} deliveries)`
  );
}

export interface BenchReceiver {
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

export async function startReceiver(): Promise<BenchReceiver> {
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

export async function endpointFor(store: Store, url: string): Promise<string> {
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
export async function backlog(store: Store, orgId: string, n: number): Promise<void> {
  for (let done = 0; done < n; done += 500) {
    const events = Array.from({ length: Math.min(500, n - done) }, (_, i) => ({
      type: "contact.created",
      object: { id: `con_${done + i}`, name: "Bench" },
    }));
    await store.transaction((tx) => recordEvents(tx, orgId, new Date(), events));
  }
}

export type Worker = ListeningProcess & { dir: string; meter?: DbMeter };

export async function startWorker(
  databaseUrl: string,
  bin = BIN,
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<Worker> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-bench-wh-"));
  const meter = process.env.BENCH_DB_METER === "1" ? await startDbMeter(databaseUrl) : undefined;
  return startListening(
    [process.execPath, "--no-node-snapshot", ...nodeArgs, bin, "serve", "--role", "worker"],
    {
      DATABASE_URL: meter?.url ?? databaseUrl,
      TESSERA_SECRET: SECRET,
      TESSERA_DATA_DIR: dir,
      TESSERA_ALLOW_PRIVATE_TARGETS: "1",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "warn",
      ...env,
    },
  ).then(
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
export interface CostReading {
  received: number;
  /** This process's CPU: the receiver's, since the bench waits meanwhile. */
  receiverCpuS: number;
  workerCpuS: number;
  workerMainThreadS: number;
  database?: { statements: number; backendCpuS: number };
}

/** One delivery's cost over a drain: CPU in µs, statements (round trips) as a count. */
export interface DeliveryCost {
  deliveries: number;
  receiverCpuUs: number;
  workerCpuUs: number;
  workerMainThreadUs: number;
  statements?: number;
  backendCpuUs?: number;
}

export function costReading(workers: Worker[], receiver: BenchReceiver): CostReading {
  const sum = (value: (w: Worker) => number) => workers.reduce((total, w) => total + value(w), 0);
  const readings = workers.map((w) => w.meter?.reading());
  return {
    received: receiver.received(),
    receiverCpuS: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
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

export function costBetween(start: CostReading, end: CostReading): DeliveryCost {
  const deliveries = end.received - start.received;
  const perDeliveryUs = (s: number, e: number) => ((e - s) / deliveries) * 1e6;
  return {
    deliveries,
    receiverCpuUs: perDeliveryUs(start.receiverCpuS, end.receiverCpuS),
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
export async function commitToArrival(
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
