import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../../api/server.ts";
import { openOperator } from "../../cli/operator.ts";
import { loadConfig } from "../../core/index.ts";
import { createApiKey, OPERATOR } from "../../engines/index.ts";
import { openDataDir, type Store } from "../../store/index.ts";
import { createTestApp, TEST_SECRET, type TestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Revocation is one call (the key cache's `revoke`, CONTRIBUTING.md, "How the code should
 * feel"): whichever way a key is revoked (the dashboard, `/v1`, `/admin/v1`, the CLI), it is
 * refused at once on the node that revoked it, though that node had it cached, and, on
 * PostgreSQL, on a second node sharing the store, which hears of it at commit (migration 0018).
 * Its cache entry would otherwise outlive the test: both apps run on a FakeClock, so no TTL ever
 * ends. The embedded store admits one process: on PGlite there is no second node to tell.
 */
describe.each(storeKinds())("revoking a key on $name", (kind) => {
  let store: Store;
  let a: TestApp;
  let b: TestApp | undefined;
  let org: TestOrg;

  beforeAll(async () => {
    store = await kind.open();
    a = await createTestApp(store);
    if (kind.name === "postgres") b = await createTestApp(store);
    org = await a.newOrg();
  });
  afterAll(async () => {
    await b?.dispose();
    await a?.dispose();
    await store?.dispose();
  });

  const status = async (app: TestApp, secret: string) =>
    (await app.request("GET", "/v1/me", { key: secret })).status;

  /** A new key that every node has resolved, so each holds it in its cache. */
  const cachedKey = async () => {
    const key = await createApiKey(store, org.id, { kind: "read_only", name: "doomed" }, OPERATOR);
    for (const app of [a, b]) if (app) expect(await status(app, key.secret)).toBe(200);
    return key;
  };

  /** Refused by the node that revoked it on the very next request, and by the other node at once. */
  const expectRefusedEverywhere = async (secret: string, revokedOn: TestApp | undefined = a) => {
    if (revokedOn) expect(await status(revokedOn, secret)).toBe(401);
    for (const app of [a, b]) {
      if (app && app !== revokedOn)
        await expect.poll(() => status(app, secret), { timeout: 2_000 }).toBe(401);
    }
  };

  it("through /v1", async () => {
    const key = await cachedKey();
    const revoked = await a.request("POST", `/v1/api_keys/${key.id}/revoke`, { key: org.key });
    expect(revoked.status).toBe(200);
    await expectRefusedEverywhere(key.secret);
  });

  it("through the dashboard", async () => {
    const key = await cachedKey();
    const owner = await signedInMember(a, org.id, "owner");
    const revoked = await a.request("POST", `/settings/api-keys/${key.id}/revoke`, {
      raw: new URLSearchParams({ _csrf: owner.csrf }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: owner.cookie },
    });
    expect(revoked.status, revoked.text).toBe(303);
    await expectRefusedEverywhere(key.secret);
  });

  it("through /admin/v1", async () => {
    const key = await cachedKey();
    const revoked = await a.request("POST", `/admin/v1/orgs/${org.id}/keys/${key.id}/revoke`, {
      headers: { authorization: "Bearer tsa_test_token" },
    });
    expect(revoked.status).toBe(200);
    await expectRefusedEverywhere(key.secret);
  });

  it("through the CLI, sent to the running server's /admin/v1", async () => {
    const key = await cachedKey();
    const dataDir = mkdtempSync(join(tmpdir(), "tessera-revoke-"));
    const server: Server = await listen(a.services.api(), "127.0.0.1", 0);
    try {
      // What `tessera serve` leaves in its data dir for the CLI: where it runs, and the operator token.
      openDataDir(dataDir).markRunning(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      writeFileSync(join(dataDir, "admin.token"), "tsa_test_token\n");
      const operator = await openOperator(loadConfig({ TESSERA_DATA_DIR: dataDir }), { migrate: false });
      const revoked = await operator.revokeKey(org.name, key.id);
      await operator.dispose();
      expect(revoked.revoked_at).toEqual(expect.any(String));
      await expectRefusedEverywhere(key.secret);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.skipIf(kind.name !== "postgres")("through the CLI, on the database directly", async () => {
    const key = await cachedKey();
    const dataDir = mkdtempSync(join(tmpdir(), "tessera-revoke-"));
    try {
      const config = loadConfig({
        DATABASE_URL: process.env.TEST_DATABASE_URL!,
        TESSERA_SECRET: TEST_SECRET,
        TESSERA_DATA_DIR: dataDir,
      });
      const operator = await openOperator(config, { migrate: false });
      try {
        await operator.revokeKey(org.id, key.id);
      } finally {
        await operator.dispose();
      }
      // Neither app revoked it: both hear of it by message.
      await expectRefusedEverywhere(key.secret, undefined);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("revoking a key, as the code does it", () => {
  it("goes through the key cache's revoke everywhere: no caller calls revokeApiKey alone", () => {
    const callers = [
      "dashboard/api-keys.ts",
      "api/routes/credentials.ts",
      "api/routes/admin.ts",
      "cli/operator.ts",
    ];
    for (const file of callers) {
      const source = readFileSync(join(import.meta.dirname, "../..", file), "utf8");
      expect(source, file).not.toContain("revokeApiKey");
      expect(source, file).toMatch(/keys\.revoke\(/);
    }
  });
});
