import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createSecretBox, randomBase62, type SecretBox } from "../../core/index.ts";
import { createOrganization } from "../../engines/index.ts";
import { createPostgresStore, migrate, type Store } from "../../store/index.ts";
import { generateSecret } from "../../webhooks/index.ts";
import { TEST_SECRET } from "./app.ts";
import { openMigratedPglite } from "./pglite-image.ts";
import { emptyDatabase } from "./stores.ts";

/** A receiver's record of one request. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the receiver answers; `hang` never answers (until the receiver closes). */
export type Responder = (
  request: Received,
) => { status: number; headers?: Record<string, string>; delayMs?: number } | "hang";

/**
 * A real HTTP receiver on 127.0.0.1 for delivery tests: records every request and
 * answers with `respond` (200 by default; replace it any time).
 */
export interface Receiver {
  url: string;
  received: Received[];
  respond: Responder;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200 })): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const receiver: Receiver = {
    url: "",
    received: [],
    respond,
    waitFor(count, timeoutMs = 20_000) {
      if (receiver.received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${receiver.received.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: Received = {
        path: req.url ?? "/",
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      receiver.received.push(request);
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const answer = receiver.respond(request);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      const reply = () => res.writeHead(answer.status, answer.headers).end("ok");
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/**
 * Stores for suites that run a webhook worker: a worker claims every due delivery in
 * its database, so on PostgreSQL each suite gets a database of its own (dropped at
 * dispose) instead of the shared `test` one other suites write to.
 */
export function workerStoreKinds(): Array<{ name: string; open(): Promise<Store> }> {
  const kinds = [{ name: "pglite", open: async () => migrated(await openMigratedPglite()) }];
  const url = process.env.TEST_DATABASE_URL;
  if (url) kinds.push({ name: "postgres", open: () => privateDatabase(url) });
  return kinds;
}

async function migrated(store: Store): Promise<Store> {
  await migrate(store);
  return store;
}

/** A fresh database next to the one `url` names; dropped when the store is disposed. */
export async function privateDatabase(url: string, poolSize = 4): Promise<Store & { url: string }> {
  const database = await emptyDatabase(url, "test_wh");
  const store = await migrated(createPostgresStore({ url: database.url, poolSize }));
  return {
    ...store,
    url: database.url,
    async dispose() {
      await store.dispose();
      await database.drop();
    },
  };
}

/** Opens what the test app (test/helpers/app.ts) seals. */
export const testBox: SecretBox = createSecretBox(TEST_SECRET);

export interface TestEndpoint {
  id: string;
  orgId: string;
  /** The plaintext `whsec_` secret receivers verify with. */
  secret: string;
}

/** An organization and an endpoint written straight to the store (the API's checks are W1's suite). */
export async function insertEndpoint(
  store: Store,
  url: string,
  columns: {
    orgId?: string;
    headers?: Record<string, string>;
    retry_policy?: unknown;
    rate_limit_per_s?: number;
    event_types?: string[];
  } = {},
): Promise<TestEndpoint> {
  const orgId = columns.orgId ?? (await createOrganization(store, { name: `wh-${randomBase62(8)}` })).id;
  const secret = generateSecret("v1").signing;
  const id = `we_${randomBase62(20)}`;
  await store.query(
    `INSERT INTO webhook_endpoints (id, org_id, url, secret, headers, retry_policy, rate_limit_per_s, event_types)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8::text[])`,
    [
      id,
      orgId,
      url,
      testBox.seal(secret),
      columns.headers ?? {},
      columns.retry_policy ?? null,
      columns.rate_limit_per_s ?? null,
      columns.event_types ?? [],
    ],
  );
  return { id, orgId, secret };
}
