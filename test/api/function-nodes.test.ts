import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../store/index.ts";
import { createTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Two API nodes on one store, each with its own warm isolates: a change made through one
 * (secrets, a deploy, a rollback) reaches the other's next request once its lookup cache
 * (1 s) has passed, at the latest (on PostgreSQL a notification usually makes it sooner), and
 * never serves a warm isolate with stale code or `Deno.env`.
 * Each node has its own clock: the test steps node b's past its lookup cache.
 */
const SOURCE = (version: string) =>
  `export default { fetch: (req, env) => Response.json({ version: "${version}", token: env.TOKEN ?? null }) };`;
const LOOKUP_CACHE_MS = 1_000;

describe.each(storeKinds())("functions across two nodes on $name", (kind) => {
  let store: Store;
  let a: TestApp;
  let b: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    store = await kind.open();
    a = await createTestApp(store);
    b = await createTestApp(store);
    org = await a.newOrg();
  });
  const pastLookupCache = () => b.clock.advance(LOOKUP_CACHE_MS + 1);
  afterAll(async () => {
    await a.dispose();
    await b.dispose();
    await store.dispose();
  });

  const invokeOn = async (node: TestApp) =>
    (await node.request("GET", "/v1/functions/two-nodes/invoke", { key: org.key })).body as unknown;

  it("serves another node's secrets change, deploy and rollback on its next request", async () => {
    const deploy = (version: string) =>
      a.request("POST", "/v1/functions", {
        key: org.key,
        body: { name: "two-nodes", files: { "index.ts": SOURCE(version) } },
      });
    expect((await deploy("v1")).status).toBe(201);
    await a.request("PUT", "/v1/functions/two-nodes/secrets", { key: org.key, body: { TOKEN: "one" } });
    // Node b boots its isolate with the first secret, and keeps it warm.
    expect(await invokeOn(b)).toEqual({ version: "v1", token: "one" });
    expect(await invokeOn(b)).toEqual({ version: "v1", token: "one" });

    await a.request("PUT", "/v1/functions/two-nodes/secrets", { key: org.key, body: { TOKEN: "two" } });
    // Until b's clock passes its lookup cache, b may serve what it looked up; on PostgreSQL the
    // change's notification (store/invalidations.ts) can reach b first, and then it serves the new one.
    expect(["one", "two"]).toContain(((await invokeOn(b)) as { token: string }).token);
    pastLookupCache();
    expect(await invokeOn(b)).toEqual({ version: "v1", token: "two" });

    expect((await deploy("v2")).status).toBe(201);
    pastLookupCache();
    expect(await invokeOn(b)).toEqual({ version: "v2", token: "two" });

    await a.request("POST", "/v1/functions/two-nodes/rollback", { key: org.key, body: {} });
    pastLookupCache();
    expect(await invokeOn(b)).toEqual({ version: "v1", token: "two" });
    // The node that made the changes serves them at once.
    expect(await invokeOn(a)).toEqual({ version: "v1", token: "two" });
  });
});
