import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

describe.each(storeKinds())("authentication and permissions on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const draftInvoice = {
    client: "Acme",
    amount: 100,
    currency: "EUR",
    due_date: "2025-04-01",
    status: "draft",
  };

  describe("credentials", () => {
    it("answers 401 with a bare Bearer challenge when no credential is sent", async () => {
      const response = await t.request("GET", "/v1/invoices");
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(response.body.code).toBe("unauthenticated");
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="tessera"');
    });

    it.each([
      ["a key that is not a key", "Bearer not-a-key"],
      ["a key of the right shape that does not exist", `Bearer sk_live_${"A".repeat(40)}`],
      ["a key that is too short", "Bearer sk_live_abc"],
      ["another scheme", "Basic dXNlcjpwYXNz"],
      ["the scheme without a token", "Bearer"],
    ])("answers 401 invalid_token for %s", async (_, authorization) => {
      const response = await t.request("GET", "/v1/invoices", { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("invalid_token");
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="tessera", error="invalid_token"');
    });

    it("accepts the Bearer scheme in any letter case (RFC 7235 §2.1)", async () => {
      const response = await t.request("GET", "/v1/me", { headers: { authorization: `bearer ${org.key}` } });
      expect(response.status).toBe(200);
    });

    it("refuses a key on the very next request after it is revoked", async () => {
      const created = await t.request("POST", "/v1/api_keys", {
        key: org.key,
        body: { kind: "full_access" },
      });
      const secret = created.body.secret as string;
      expect((await t.request("GET", "/v1/invoices", { key: secret })).status).toBe(200);

      const revoked = await t.request("POST", `/v1/api_keys/${created.body.id}/revoke`, { key: org.key });
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toEqual(expect.any(String));

      const after = await t.request("GET", "/v1/invoices", { key: secret });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe("invalid_token");
      expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    });

    it("refuses a key at once after DELETE /v1/api_keys/{id}, and leaves other keys working", async () => {
      const other = await org.addKey({ kind: "full_access" });
      const created = await t.request("POST", "/v1/api_keys", { key: org.key, body: { kind: "read_only" } });
      expect((await t.request("GET", "/v1/contacts", { key: created.body.secret })).status).toBe(200);

      const deleted = await t.request("DELETE", `/v1/api_keys/${created.body.id}`, { key: other });
      expect(deleted.status).toBe(204);
      expect((await t.request("GET", "/v1/contacts", { key: created.body.secret })).status).toBe(401);
      expect((await t.request("GET", "/v1/contacts", { key: other })).status).toBe(200);
    });

    it("lets a key revoke itself, after which it is refused", async () => {
      const own = await t.newOrg();
      const revoked = await t.request("POST", `/v1/api_keys/${own.keyId}/revoke`, { key: own.key });
      expect(revoked.status).toBe(200);
      expect((await t.request("GET", "/v1/me", { key: own.key })).status).toBe(401);
    });
  });

  describe("scopes", () => {
    it("lets a read_only key read but answers 403 insufficient_scope to every write", async () => {
      const readOnly = await org.addKey({ kind: "read_only" });
      const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Ada" } });

      expect((await t.request("GET", "/v1/contacts", { key: readOnly })).status).toBe(200);
      expect((await t.request("GET", `/v1/contacts/${contact.body.id}`, { key: readOnly })).status).toBe(200);
      expect((await t.request("GET", "/v1/invoices", { key: readOnly })).status).toBe(200);

      const writes = [
        t.request("POST", "/v1/contacts", { key: readOnly, body: { name: "Bob" } }),
        t.request("PATCH", `/v1/contacts/${contact.body.id}`, { key: readOnly, body: { name: "Eve" } }),
        t.request("DELETE", `/v1/contacts/${contact.body.id}`, { key: readOnly }),
      ];
      for (const response of await Promise.all(writes)) {
        expect(response.status).toBe(403);
        expect(response.body.code).toBe("insufficient_scope");
        expect(response.headers.get("www-authenticate")).toBe(
          'Bearer realm="tessera", error="insufficient_scope", scope="growth:write"',
        );
      }
      const unchanged = await t.request("GET", `/v1/contacts/${contact.body.id}`, { key: org.key });
      expect(unchanged.body).toEqual(contact.body);
    });

    it("lets a growth:write engine key write contacts but not read invoices", async () => {
      const growth = await org.addKey({ kind: "engine", engines: ["growth"], access: "write" });

      const created = await t.request("POST", "/v1/contacts", { key: growth, body: { name: "Grace" } });
      expect(created.status).toBe(201);
      const patched = await t.request("PATCH", `/v1/contacts/${created.body.id}`, {
        key: growth,
        body: { company: "Navy" },
      });
      expect(patched.status).toBe(200);
      // Write implies read.
      expect((await t.request("GET", "/v1/contacts", { key: growth })).status).toBe(200);

      const invoices = await t.request("GET", "/v1/invoices", { key: growth });
      expect(invoices.status).toBe(403);
      expect(invoices.body.code).toBe("insufficient_scope");
      expect(invoices.headers.get("www-authenticate")).toContain('scope="finance:read"');
      expect((await t.request("POST", "/v1/invoices", { key: growth, body: draftInvoice })).status).toBe(403);
      expect((await t.request("GET", "/v1/products", { key: growth })).status).toBe(403);
    });

    it("lets an engine key with read access read its engine only", async () => {
      const finance = await org.addKey({ kind: "engine", engines: ["finance"], access: "read" });
      expect((await t.request("GET", "/v1/invoices", { key: finance })).status).toBe(200);
      expect((await t.request("POST", "/v1/invoices", { key: finance, body: draftInvoice })).status).toBe(
        403,
      );
      expect((await t.request("GET", "/v1/contacts", { key: finance })).status).toBe(403);
    });

    it("needs keys:read to list keys and keys:write to create or revoke them", async () => {
      const readOnly = await org.addKey({ kind: "read_only" });
      const growth = await org.addKey({ kind: "engine", engines: ["growth"], access: "write" });

      expect((await t.request("GET", "/v1/api_keys", { key: readOnly })).status).toBe(200);
      const create = await t.request("POST", "/v1/api_keys", {
        key: readOnly,
        body: { kind: "full_access" },
      });
      expect(create.status).toBe(403);
      expect(create.body.code).toBe("insufficient_scope");
      expect(create.headers.get("www-authenticate")).toContain('scope="keys:write"');
      const revoke = await t.request("POST", `/v1/api_keys/${org.keyId}/revoke`, { key: readOnly });
      expect(revoke.status).toBe(403);

      // An engine key cannot escalate itself by minting a full-access key.
      expect((await t.request("GET", "/v1/api_keys", { key: growth })).status).toBe(403);
      expect(
        (await t.request("POST", "/v1/api_keys", { key: growth, body: { kind: "full_access" } })).status,
      ).toBe(403);
      expect((await t.request("GET", "/v1/me", { key: org.key })).status).toBe(200);
    });
  });

  describe("/v1/me and key secrets", () => {
    it("returns the organization and the credential, without a secret, to any valid key", async () => {
      const growth = await org.addKey({ kind: "engine", engines: ["growth"], access: "read" });
      for (const secret of [org.key, growth]) {
        const me = await t.request("GET", "/v1/me", { key: secret });
        expect(me.status).toBe(200);
        expect(me.body.object).toBe("me");
        expect(me.body.organization).toMatchObject({ id: org.id, object: "organization", name: org.name });
        expect(me.body.credential).toMatchObject({ type: "api_key", id: expect.stringMatching(/^key_/) });
        expect(me.text).not.toContain(secret);
        expect(me.text).not.toContain("secret_hash");
      }
      const full = await t.request("GET", "/v1/me", { key: org.key });
      expect(full.body.credential).toEqual({
        type: "api_key",
        id: org.keyId,
        kind: "full_access",
        scopes: ["*"],
      });
      const engine = await t.request("GET", "/v1/me", { key: growth });
      expect(engine.body.credential).toMatchObject({ kind: "engine", scopes: ["growth:read"] });
    });

    it("shows a new key's secret once, at creation, and never again", async () => {
      const created = await t.request("POST", "/v1/api_keys", {
        key: org.key,
        body: { name: "ci", kind: "engine", engines: ["finance"], access: "write" },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get("location")).toBe(`/v1/api_keys/${created.body.id}`);
      const secret = created.body.secret as string;
      expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
      expect(created.body).toMatchObject({
        object: "api_key",
        name: "ci",
        kind: "engine",
        scopes: ["finance:write"],
        redacted_secret: `${secret.slice(0, 12)}…${secret.slice(-4)}`,
        revoked_at: null,
      });
      expect((await t.request("GET", "/v1/invoices", { key: secret })).status).toBe(200);

      const one = await t.request("GET", `/v1/api_keys/${created.body.id}`, { key: org.key });
      expect(one.status).toBe(200);
      expect(one.body).not.toHaveProperty("secret");
      expect(one.text).not.toContain(secret);
      const list = await t.request("GET", "/v1/api_keys?per_page=100", { key: org.key });
      expect(list.status).toBe(200);
      expect(list.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id);
      expect(list.text).not.toContain(secret);
      expect(list.text).not.toContain('"secret"');
      // Nor does the api_key.created event carry it.
      const events = await t.request("GET", "/v1/events?per_page=100", { key: org.key });
      expect(events.status).toBe(200);
      expect(events.text).not.toContain(secret);
    });
  });

  describe("another organization's objects", () => {
    let other: TestOrg;
    beforeAll(async () => {
      other = await t.newOrg();
    });

    it.each([
      ["invoice", "/v1/invoices", draftInvoice, { client: "Mallory" }],
      ["contact", "/v1/contacts", { name: "Ada" }, { name: "Mallory" }],
      ["product", "/v1/products", { name: "Widget", price: 9.5, currency: "EUR" }, { name: "Mallory" }],
    ])(
      "answers 404, never 403, for another organization's %s and leaves it unchanged",
      async (_, path, body, patch) => {
        const theirs = await t.request("POST", path, { key: other.key, body });
        expect(theirs.status).toBe(201);
        const url = `${path}/${theirs.body.id}`;

        for (const response of [
          await t.request("GET", url, { key: org.key }),
          await t.request("PATCH", url, { key: org.key, body: patch }),
          await t.request("DELETE", url, { key: org.key }),
        ]) {
          expect(response.status).toBe(404);
          expect(response.body.code).toBe("not_found");
        }
        const list = await t.request("GET", `${path}?per_page=100`, { key: org.key });
        expect(list.body.data.map((o: { id: string }) => o.id)).not.toContain(theirs.body.id);

        const after = await t.request("GET", url, { key: other.key });
        expect(after.status).toBe(200);
        expect(after.body).toEqual(theirs.body);
      },
    );

    it("answers 404 for another organization's api_key and leaves it working", async () => {
      const url = `/v1/api_keys/${other.keyId}`;
      const before = await t.request("GET", url, { key: other.key });

      for (const response of [
        await t.request("GET", url, { key: org.key }),
        await t.request("POST", `${url}/revoke`, { key: org.key }),
        await t.request("DELETE", url, { key: org.key }),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.code).toBe("not_found");
      }
      const list = await t.request("GET", "/v1/api_keys?per_page=100", { key: org.key });
      expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(other.keyId);

      // last_used_at is written in the background, so compare everything else.
      const { last_used_at: _, ...unchanged } = before.body;
      const after = await t.request("GET", url, { key: other.key });
      expect(after.body).toMatchObject({ ...unchanged, revoked_at: null });
      expect((await t.request("GET", "/v1/me", { key: other.key })).status).toBe(200);
    });
  });
});
