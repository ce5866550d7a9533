import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createOrganization, OPERATOR } from "../../engines/index.ts";
import type { Store } from "../../store/index.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { insertEndpoint, privateDatabase, startReceiver, type Receiver } from "../helpers/webhooks.ts";
import { call, createCluster, inBatches, msUntil, type Cluster, type Reply } from "./cluster.ts";

/**
 * Many nodes (docs/many-nodes.md): two `api` and two `worker` processes of the real entry
 * point on one PostgreSQL database (a fresh one per run) and one Redis, a webhook receiver in
 * this process. What one node changes, the others see by message within 100 ms; the queues
 * deliver and run everything once, through a SIGKILL, a node joining and SIGTERMs mid-load.
 * The 100 ms bounds are the contract under test (the caches' TTLs are 1 s and 10 min here),
 * the one place the suite asserts on durations.
 */
const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const enabled = Boolean(databaseUrl && redisUrl);
if (!enabled) {
  console.warn(
    "test/multinode skipped: it needs TEST_DATABASE_URL and TEST_REDIS_URL (PostgreSQL and Redis)",
  );
}

const CROSS_NODE_MS = 100;
/** The free plan's limit is the one under test; an hour's window never ends mid-test. */
const RATE_LIMITS = { free: { limit: 10, window_s: 3_600 }, enterprise: { limit: 1_000_000, window_s: 60 } };
const MINUTE_MS = 60_000;

const labelled = (label: string) => `
export default {
  fetch(req, env) {
    const body = JSON.stringify({ label: ${JSON.stringify(label)}, greeting: env.GREETING ?? null });
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
};`;

/** Records each run it gets in engine state: `<trigger>:<event id | cron minute>:<uuid>`, so a repeat shows. */
const RECORDER = `
export default {
  async fetch(req, env, ctx) {
    const trigger = req.headers.get("tessera-trigger");
    const body = await req.json();
    const about = trigger === "cron" ? body.scheduled_time : req.headers.get("tessera-event-id");
    await ctx.engines.sync.set(trigger + ":" + about + ":" + crypto.randomUUID(), {});
    return new Response(null, { status: 204 });
  },
};`;

const SLOW = `
export default {
  async fetch() {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return new Response("done");
  },
};`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** fetch fails with a TypeError when no answer came (refused, reset): a client may send again. */
const networkErrorAsUndefined = (error: unknown): undefined => {
  if (error instanceof TypeError) return undefined;
  throw error;
};

describe.skipIf(!enabled)("many nodes: two API nodes and two workers on one PostgreSQL and one Redis", () => {
  let db: Store & { url: string };
  let cluster: Cluster;
  let receiver: Receiver;
  let a: ServerProcess;
  let b: ServerProcess;
  let workers: ServerProcess[];
  let orgId: string;
  let key: string;
  let cronDeployedAt: Date;
  /** Writes a client sent again (same Idempotency-Key) after a network error or a 409. */
  let retried = 0;

  const deploy = (node: ServerProcess, name: string, source: string, extra: object = {}) =>
    call(node, "POST", "/v1/functions", {
      key,
      // A cold run on a loaded machine can pass the 50 ms default; CPU limits have their own tests.
      body: { name, files: { "index.ts": source }, limits: { cpu_time_ms: 1_000 }, ...extra },
    });

  beforeAll(async () => {
    db = await privateDatabase(databaseUrl!);
    receiver = await startReceiver(() => ({ status: 200, delayMs: 10 }));
    const org = await createOrganization(db, { name: "multinode", plan: "enterprise" });
    orgId = org.id;
    key = (await createApiKey(db, orgId, { kind: "full_access", name: "multinode" }, OPERATOR)).secret;
    for (const path of ["/a", "/b"]) {
      await insertEndpoint(db, receiver.url + path, { orgId, event_types: ["contact.created"] });
    }
    cluster = createCluster({
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl!,
      TESSERA_ALLOW_PRIVATE_TARGETS: "1",
      // Far past the test: a key B still accepts after a revocation was not told of it.
      TESSERA_KEY_CACHE_TTL_MS: "600000",
      TESSERA_RATE_LIMITS: JSON.stringify(RATE_LIMITS),
      // The receiver shares this process's turns with the writers: on a loaded machine a 2 s
      // deadline passes now and then, and the retry is a second copy no worker is at fault for.
      // A delivery a killed worker held waits out its lease, this plus 5 s.
      TESSERA_WEBHOOK_TIMEOUT_MS: "5000",
      TESSERA_DB_POOL_SIZE: "4",
      // Request lines too: what each node did is printed when a test fails.
      LOG_LEVEL: "info",
    });
    // Two at a time: four processes compiling their TypeScript at once can pass the start timeout.
    [a, b] = await Promise.all([cluster.start("api"), cluster.start("api")]);
    workers = await Promise.all([cluster.start("worker"), cluster.start("worker")]);
    // Deployed before the tests: its cron minutes come while two or three workers race for each tick.
    const triggers = [
      { type: "event", events: ["deal.created"] },
      { type: "cron", schedule: "* * * * *" },
    ];
    expect((await deploy(a, "recorder", RECORDER, { triggers })).status).toBe(201);
    cronDeployedAt = new Date();
  }, 90_000);

  afterEach(async ({ task }) => {
    if (task.result?.state === "fail") console.error(await cluster.logs());
  });

  afterAll(async () => {
    await cluster?.destroy();
    await receiver?.close();
    await db?.dispose();
  });

  /**
   * POST /v1/contacts as a client behind a load balancer: after a network error or a 409 (the
   * same request in flight), the same request (same Idempotency-Key) again on the next node.
   */
  const createContact = async (nodes: ServerProcess[], first: number, name: string): Promise<string> => {
    const headers = { "idempotency-key": randomUUID() };
    for (let attempt = 0; attempt < 40; attempt++) {
      const node = nodes[(first + attempt) % nodes.length]!;
      const reply = await call(node, "POST", "/v1/contacts", { key, body: { name }, headers }).catch(
        networkErrorAsUndefined,
      );
      if (reply?.status === 201) return reply.body.id as string;
      if (reply && reply.status !== 409) throw new Error(`POST /v1/contacts: ${reply.status}`);
      retried++;
      await sleep(50);
    }
    throw new Error(`POST /v1/contacts '${name}' failed 40 times`);
  };
  const writeContacts = (count: number, tag: string, nodes = [a, b]) =>
    inBatches(
      Array.from({ length: count }, (_, i) => i),
      8,
      (i) => createContact(nodes, i, `${tag} ${i}`),
    );

  /** The ids of the `contact.created` events of these contacts: the `webhook-id`s they are delivered with. */
  const eventIdsOf = async (contactIds: string[]) => {
    const rows = await db.query<{ id: string }>(
      `SELECT id FROM events WHERE org_id = $1 AND type = 'contact.created' AND data -> 'object' ->> 'id' = ANY($2::text[])`,
      [orgId, contactIds],
    );
    return rows.map((row) => row.id);
  };
  /** How many times each endpoint got each of `eventIds` (the receiver's requests from `since` on). */
  const deliveries = (eventIds: string[], since: number) => {
    const wanted = new Set(eventIds);
    const counts = { "/a": new Map<string, number>(), "/b": new Map<string, number>() };
    for (const request of receiver.received.slice(since)) {
      const id = request.headers["webhook-id"]!;
      const perEvent = counts[request.path as "/a" | "/b"];
      if (perEvent && wanted.has(id)) perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    return counts;
  };
  const expectAllDelivered = async (eventIds: string[], since: number, timeout = 30_000) => {
    const missing = () =>
      Object.values(deliveries(eventIds, since)).reduce((n, got) => n + eventIds.length - got.size, 0);
    await expect.poll(missing, { timeout, interval: 200 }).toBe(0);
  };
  /** The events of `eventIds` an endpoint got more than once since `since`. */
  const sentTwice = (eventIds: string[], since: number) =>
    Object.values(deliveries(eventIds, since)).flatMap((got) =>
      [...got].filter(([, times]) => times > 1).map(([id]) => id),
    );
  /** None sent twice; else the attempts say why (a lease that ran out, or a second claim). */
  const expectSentOnce = async (eventIds: string[], since: number) => {
    const twice = sentTwice(eventIds, since);
    if (twice.length === 0) return;
    const attempts = await db.query(
      `SELECT d.event_id, a.attempt, a.started_at, a.duration_ms, a.status_code, a.error
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.event_id = ANY($1::text[]) ORDER BY d.event_id, a.attempt`,
      [twice.slice(0, 3)],
    );
    expect.fail(`${twice.length} deliveries were sent twice; attempts of some: ${JSON.stringify(attempts)}`);
  };

  /** Keys the recorder wrote, by what it ran for (`event:<id>` or `cron:<minute>`): how many times each. */
  const recordedRuns = async () => {
    const rows = await db.query<{ key: string }>(
      "SELECT key FROM engine_state WHERE org_id = $1 AND engine = 'sync'",
      [orgId],
    );
    const runs = new Map<string, number>();
    for (const { key: recorded } of rows) {
      const about = recorded.slice(0, recorded.lastIndexOf(":"));
      runs.set(about, (runs.get(about) ?? 0) + 1);
    }
    return runs;
  };

  it("serves a deploy, a rollback and a secrets change made through A on B within 100 ms", async () => {
    expect((await deploy(a, "hello", labelled("v1"))).status).toBe(201);
    const servedByB = async (): Promise<{ label?: string; greeting?: string } | undefined> =>
      (await call(b, "GET", "/v1/functions/hello/invoke", { key })).body;
    await expect.poll(async () => (await servedByB())?.label, { timeout: 30_000 }).toBe("v1");

    /** B's lookup cached just now (its 1 s TTL has nearly all of it left); the change through A; then B. */
    const afterChange = async (change: () => Promise<Reply>, served: (body: unknown) => boolean) => {
      await sleep(1_050);
      await servedByB();
      expect((await change()).status).toBeLessThan(300);
      return msUntil(async () => served(await servedByB()));
    };
    const latencyMs = {
      deploy: await afterChange(
        () => deploy(a, "hello", labelled("v2")),
        (body) => (body as { label?: string })?.label === "v2",
      ),
      rollback: await afterChange(
        () => call(a, "POST", "/v1/functions/hello/rollback", { key, body: {} }),
        (body) => (body as { label?: string })?.label === "v1",
      ),
      secrets: await afterChange(
        () => call(a, "PUT", "/v1/functions/hello/secrets", { key, body: { GREETING: "hi" } }),
        (body) => (body as { greeting?: string })?.greeting === "hi",
      ),
    };
    console.info("multinode: B serves A's change after (ms)", latencyMs);
    for (const ms of Object.values(latencyMs)) expect(ms).toBeLessThan(CROSS_NODE_MS);
  });

  it("refuses on B a key revoked through A at once", async () => {
    const created = await call(a, "POST", "/v1/api_keys", {
      key,
      body: { kind: "read_only", name: "doomed" },
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect((await call(b, "GET", "/v1/me", { key: secret })).status).toBe(200);
    expect((await call(a, "POST", `/v1/api_keys/${created.body.id}/revoke`, { key })).status).toBe(200);
    const ms = await msUntil(async () => (await call(b, "GET", "/v1/me", { key: secret })).status === 401);
    console.info("multinode: B refuses a key revoked through A after (ms)", ms);
    expect(ms).toBeLessThan(CROSS_NODE_MS);
  });

  it("counts one key's rate limit across both API nodes", async () => {
    const free = await createOrganization(db, { name: "multinode-free", plan: "free" });
    const { secret } = await createApiKey(db, free.id, { kind: "read_only", name: "limited" }, OPERATOR);
    const replies: Reply[] = [];
    for (let i = 0; i < 12; i++) replies.push(await call(i % 2 ? b : a, "GET", "/v1/me", { key: secret }));
    expect(replies.map((reply) => reply.status)).toEqual([...Array<number>(10).fill(200), 429, 429]);
    expect(replies.slice(0, 10).map((reply) => reply.headers.get("x-ratelimit-remaining"))).toEqual([
      "9",
      "8",
      "7",
      "6",
      "5",
      "4",
      "3",
      "2",
      "1",
      "0",
    ]);
  });

  it("delivers each event once per endpoint and runs each event trigger once, through both nodes", async () => {
    const since = receiver.received.length;
    const [contacts, deals] = await Promise.all([
      writeContacts(200, "burst"),
      inBatches([...Array(20).keys()], 4, async (i) => {
        const body = { title: `Deal ${i}`, value: "100.00", currency: "EUR" };
        const reply = await call(i % 2 ? b : a, "POST", "/v1/deals", { key, body });
        expect(reply.status).toBe(201);
        return reply.body.id as string;
      }),
    ]);
    const eventIds = await eventIdsOf(contacts);
    expect(eventIds).toHaveLength(200);
    await expectAllDelivered(eventIds, since);
    const dealEvents = await db.query<{ id: string }>(
      `SELECT id FROM events WHERE type = 'deal.created' AND data -> 'object' ->> 'id' = ANY($1::text[])`,
      [deals],
    );
    expect(dealEvents).toHaveLength(20);
    const dealRuns = async () => {
      const runs = await recordedRuns();
      return dealEvents.map(({ id }) => runs.get(`event:${id}`) ?? 0);
    };
    const ran = async () => (await dealRuns()).filter((times) => times > 0).length;
    await expect.poll(ran, { timeout: 20_000, interval: 250 }).toBe(20);
    // Late copies would come now, if a second worker had claimed a delivery or a run too.
    await sleep(1_000);
    await expectSentOnce(eventIds, since);
    expect(await dealRuns()).toEqual(Array<number>(20).fill(1));
  }, 60_000);

  it("loses no delivery when a worker is SIGKILLed mid-burst and another joins during it", async () => {
    const since = receiver.received.length;
    const writing = writeContacts(200, "kill");
    await receiver.waitFor(since + 60);
    expect(await workers[1]!.stop("SIGKILL")).toBeNull();
    const joining = cluster.start("worker");
    const eventIds = await eventIdsOf(await writing);
    expect(eventIds).toHaveLength(200);
    workers.push(await joining);
    // What the killed worker held is claimed again when its lease (timeout + 5 s) passes.
    await expectAllDelivered(eventIds, since);
    console.info("multinode: copies sent again after the SIGKILL", sentTwice(eventIds, since).length);
  }, 60_000);

  it("lets an API node and a worker stopped with SIGTERM mid-load finish what they hold", async () => {
    expect((await deploy(b, "slow", SLOW)).status).toBe(201);
    const since = receiver.received.length;
    retried = 0;
    const writing = writeContacts(150, "drain");
    await receiver.waitFor(since + 30);
    const slow = Array.from({ length: 5 }, () => call(a, "GET", "/v1/functions/slow/invoke", { key }));
    await sleep(400);
    const [apiExit, workerExit] = await Promise.all([a.stop("SIGTERM"), workers[0]!.stop("SIGTERM")]);
    expect([apiExit, workerExit]).toEqual([0, 0]);
    expect((await Promise.all(slow)).map((reply) => [reply.status, reply.body])).toEqual(
      Array(5).fill([200, "done"]),
    );
    const contacts = await writing;
    console.info("multinode: writes sent again to B after A stopped", retried);
    const [{ n }] = (await db.query(
      "SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND name LIKE 'drain %'",
      [orgId],
    )) as [{ n: number }];
    expect([new Set(contacts).size, n]).toEqual([150, 150]);
    const eventIds = await eventIdsOf(contacts);
    await expectAllDelivered(eventIds, since);
    // A worker stopped with SIGTERM records what it sent before it exits: nothing goes out twice.
    await expectSentOnce(eventIds, since);
  }, 60_000);

  it("runs each cron minute once whatever the number of workers", async () => {
    const minutes = async () => [...(await recordedRuns())].filter(([about]) => about.startsWith("cron:"));
    // Every worker's scheduler ticks at each minute; the first whole one after the deploy has a run.
    const firstMinute = Math.ceil(cronDeployedAt.getTime() / MINUTE_MS) * MINUTE_MS;
    await sleep(Math.max(0, firstMinute - Date.now()));
    await expect
      .poll(async () => (await minutes()).length, { timeout: 15_000, interval: 250 })
      .toBeGreaterThan(0);
    const ran = await minutes();
    expect(ran.map(([, times]) => times)).toEqual(ran.map(() => 1));
  }, 80_000);
});
