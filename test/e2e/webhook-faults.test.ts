import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recordEvents } from "../../engines/index.ts";
import { createPostgresStore, migrate, type Store } from "../../store/index.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { postgresBinDir, startPgCluster, type PgCluster } from "../helpers/pg-cluster.ts";
import { startServerProcess, type ServerProcess } from "../helpers/process.ts";
import { insertEndpoint, privateDatabase, startReceiver, type Receiver } from "../helpers/webhooks.ts";

/**
 * Faults that must lose nothing, with real processes: `tessera serve --role worker`
 * on PostgreSQL, a receiver on 127.0.0.1 in this process. Each test has a database
 * of its own, so no other suite's deliveries are in its queue.
 */
const url = process.env.TEST_DATABASE_URL;
const TIMEOUT_MS = 1_000; // the lease is this plus LEASE_MARGIN_MS (webhooks/worker.ts)

describe("webhook delivery under faults", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const startWorker = async (databaseUrl: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), "tessera-e2e-wh-"));
    const worker = await startServerProcess(
      {
        DATABASE_URL: databaseUrl,
        TESSERA_SECRET: TEST_SECRET,
        TESSERA_DATA_DIR: dataDir,
        TESSERA_ALLOW_PRIVATE_TARGETS: "1",
        TESSERA_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        TESSERA_DB_POOL_SIZE: "4",
      },
      ["--role", "worker"],
    );
    cleanups.push(async () => {
      await worker.stop("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    });
    return worker;
  };

  /** Commits `total` events, `perTx` per transaction; a transaction that fails is tried again. */
  const burst = async (store: Store, orgId: string, total: number, perTx = 10, pauseMs = 5) => {
    const committed: string[] = [];
    while (committed.length < total) {
      const events = Array.from({ length: perTx }, (_, i) => ({
        type: "contact.created",
        object: { id: `con_${committed.length + i}`, name: "Burst" },
      }));
      try {
        committed.push(...(await store.transaction((tx) => recordEvents(tx, orgId, new Date(), events))));
      } catch {
        // The database is restarting: the event was not committed (or is unknown to us); go on.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return committed;
  };

  /** Every committed event reached the receiver at least once; every copy carries its event's id. */
  const expectAllDelivered = async (receiver: Receiver, committed: string[]) => {
    const seen = () => new Set(receiver.received.map((r) => r.headers["webhook-id"]));
    await expect.poll(() => committed.filter((id) => !seen().has(id)).length, { timeout: 30_000 }).toBe(0);
    for (const request of receiver.received) {
      expect(request.headers["webhook-id"]).toBe((JSON.parse(request.body) as { id: string }).id);
    }
  };

  it.skipIf(!url)(
    "delivers every committed event after a worker is killed with SIGKILL mid-burst",
    async () => {
      const store = await privateDatabase(url!);
      cleanups.push(() => store.dispose());
      const receiver = await startReceiver(() => ({ status: 200, delayMs: 5 }));
      cleanups.push(() => receiver.close());
      const endpoint = await insertEndpoint(store, receiver.url);

      let worker: ServerProcess = await startWorker(store.url);
      const bursting = burst(store, endpoint.orgId, 300);
      await receiver.waitFor(40);
      await worker.stop("SIGKILL");
      const committed = await bursting;
      worker = await startWorker(store.url);
      await expectAllDelivered(receiver, committed);

      await expect
        .poll(
          async () =>
            (
              await store.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'succeeded'",
              )
            )[0]!.n,
          { timeout: 15_000 },
        )
        .toBe(0);
      expect(worker.child.exitCode).toBeNull();
    },
    60_000,
  );

  it.skipIf(!url || !postgresBinDir())(
    "keeps delivering through a PostgreSQL restart without a restart of Tessera",
    async () => {
      const cluster: PgCluster = await startPgCluster();
      cleanups.push(() => cluster.destroy());
      const store = createPostgresStore({ url: cluster.url, poolSize: 2, connectTimeoutS: 2 });
      cleanups.push(() => store.dispose());
      await migrate(store);
      const receiver = await startReceiver(() => ({ status: 200 }));
      cleanups.push(() => receiver.close());
      const endpoint = await insertEndpoint(store, receiver.url);

      const worker = await startWorker(cluster.url);
      const bursting = burst(store, endpoint.orgId, 200, 5, 20);
      await receiver.waitFor(30);
      await cluster.restart(1_000);
      const committed = await bursting;
      try {
        await expectAllDelivered(receiver, committed);
      } catch (error) {
        // What the worker saw is the only way to tell a slow reconnect from a lost delivery.
        const queue = await store.query(
          "SELECT status, attempts, count(*)::int AS n FROM webhook_deliveries GROUP BY 1, 2",
        );
        const { exitCode, signalCode, pid } = worker.child;
        throw new Error(
          `${(error as Error).message}\nqueue: ${JSON.stringify(queue)}\n` +
            `worker ${pid} exit ${exitCode} signal ${signalCode}:\n${worker.output().slice(-4000)}`,
        );
      }
      expect(worker.child.exitCode).toBeNull();
    },
    60_000,
  );
});
