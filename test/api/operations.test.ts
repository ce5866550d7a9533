import { createMetrics } from "../../api/metrics.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import { useTestApp, type RequestOptions, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

const ADMIN_TOKEN = "tsa_test_token";

describe.each(storeKinds())("operations on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind);

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  describe("probes and metrics", () => {
    it("answers GET /healthz with 200 and no credential", async () => {
      const response = await t.request("GET", "/healthz");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ok" });
    });

    it("answers GET /readyz with 200 when the t.store is ready", async () => {
      const response = await t.request("GET", "/readyz");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ready", rate_limits: "local" });
    });

    it("exposes Prometheus text counting requests by route pattern", async () => {
      await t.request("GET", "/v1/contacts", { key: org.key });
      await t.request("GET", "/v1/contacts/con_NotARealOne123", { key: org.key });
      const response = await t.request("GET", "/metrics", {
        headers: { authorization: "Bearer tsa_test_token" },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(response.text).toContain("# TYPE tessera_http_requests_total counter");
      expect(response.text).toMatch(
        /^tessera_http_requests_total\{method="GET",route="\/v1\/contacts",status="200"\} [1-9]\d*$/m,
      );
      expect(response.text).toMatch(
        /^tessera_http_requests_total\{method="GET",route="\/v1\/contacts\/:id",status="404"\} [1-9]\d*$/m,
      );
      // Labels are patterns, never raw paths: ids would make the series unbounded.
      expect(response.text).not.toContain("con_NotARealOne123");
    });

    it("adds what collectors read at scrape time, and leaves out and counts one that fails", async () => {
      const metrics = createMetrics();
      metrics.collect(async () => [{ name: "tessera_test_depth", help: "A depth.", value: 7 }]);
      metrics.collect(() => Promise.reject(new Error("t.store down")));
      const text = await metrics.render();
      expect(text).toMatch(/^# TYPE tessera_test_depth gauge$/m);
      expect(text).toMatch(/^tessera_test_depth 7$/m);
      expect(text).toMatch(/^tessera_metrics_collect_failures_total 1$/m);
      expect(await metrics.render()).toMatch(/^tessera_metrics_collect_failures_total 2$/m);
    });
  });

  describe("API reference", () => {
    it("serves GET /v1/openapi.json without a credential, documenting every mounted /v1 route", async () => {
      const response = await t.request("GET", "/v1/openapi.json");
      expect(response.status).toBe(200);
      const doc = response.body;
      expect(doc.openapi).toMatch(/^3\.1\./);
      for (const path of [
        "/v1/invoices",
        "/v1/invoices/{id}",
        "/v1/contacts",
        "/v1/contacts/{id}",
        "/v1/products",
        "/v1/products/{id}",
        "/v1/api_keys",
        "/v1/api_keys/{id}",
        "/v1/me",
      ]) {
        expect(doc.paths, path).toHaveProperty([path]);
      }
      const mounted = t.app.routes.filter(
        (route) =>
          route.path.startsWith("/v1/") && route.method !== "ALL" && route.path !== "/v1/openapi.json",
      );
      expect(mounted.length).toBeGreaterThan(15);
      for (const route of mounted) {
        const path = route.path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, "{$1}");
        expect(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
      }
      for (const name of ["Invoice", "Contact", "Product", "Problem", "ApiKey"]) {
        expect(doc.components.schemas, name).toHaveProperty([name]);
      }
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
      const invoice = doc.components.schemas.Invoice;
      expect(invoice.properties).toHaveProperty("days_overdue");
      expect(invoice.required).toEqual(
        expect.arrayContaining(["id", "client", "amount", "currency", "status"]),
      );
    });

    it("serves GET /docs as HTML pointing at the OpenAPI document", async () => {
      const response = await t.request("GET", "/docs");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.text).toContain("/v1/openapi.json");
    });
  });

  describe("operator routes under /admin/v1", () => {
    const admin = (method: string, path: string, options: RequestOptions = {}) =>
      t.request(method, `/admin/v1${path}`, {
        ...options,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers },
      });

    it.each([
      ["no token", {}],
      ["a wrong token", { authorization: "Bearer tsa_wrong_token" }],
      ["a longer token", { authorization: `Bearer ${ADMIN_TOKEN}x` }],
      ["another scheme", { authorization: `Basic ${ADMIN_TOKEN}` }],
    ])("refuses %s with 401", async (_, headers: Record<string, string>) => {
      for (const [method, path] of [
        ["GET", "/admin/v1/orgs"],
        ["POST", "/admin/v1/orgs"],
        ["GET", `/admin/v1/orgs/${org.id}/keys`],
      ] as const) {
        const body = method === "POST" ? { name: "intruder" } : undefined;
        const response = await t.request(method, path, { headers, body });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.body.code).toBe("invalid_token");
        expect(response.headers.get("x-request-id")).not.toBeNull();
      }
      const orgs = await admin("GET", "/orgs");
      expect(orgs.body.data.map((o: { name: string }) => o.name)).not.toContain("intruder");
    });

    it("refuses an organization's API key in place of the operator token", async () => {
      const response = await t.request("GET", "/admin/v1/orgs", { key: org.key });
      expect(response.status).toBe(401);
    });

    it("creates an organization and a key, lists keys without secrets, and revokes at once", async () => {
      const name = `ops-${randomBase62(8)}`;
      const created = await admin("POST", "/orgs", { body: { name, plan: "pro" } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        id: expect.stringMatching(/^org_/),
        object: "organization",
        name,
        plan: "pro",
      });
      const orgs = await admin("GET", "/orgs");
      expect(orgs.body.data.map((o: { id: string }) => o.id)).toContain(created.body.id);

      const key = await admin("POST", `/orgs/${name}/keys`, { body: { kind: "full_access", name: "ops" } });
      expect(key.status).toBe(201);
      const secret = key.body.secret as string;
      expect(secret).toMatch(/^sk_live_/);
      const me = await t.request("GET", "/v1/me", { key: secret });
      expect(me.status).toBe(200);
      expect(me.body.organization).toMatchObject({ id: created.body.id, plan: "pro" });

      const keys = await admin("GET", `/orgs/${created.body.id}/keys`);
      expect(keys.status).toBe(200);
      expect(keys.body.data.map((k: { id: string }) => k.id)).toEqual([key.body.id]);
      expect(keys.text).not.toContain(secret);

      const revoked = await admin("POST", `/orgs/${name}/keys/${key.body.id}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toEqual(expect.any(String));
      const after = await t.request("GET", "/v1/me", { key: secret });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe("invalid_token");
    });

    it("answers 404 for an unknown organization and 422 for an invalid one", async () => {
      const missing = await admin("GET", "/orgs/org_nope/keys");
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe("not_found");
      const invalid = await admin("POST", "/orgs", { body: { name: "", plan: "gold" } });
      expect(invalid.status).toBe(422);
    });

    it("answers 404 when revoking another organization's key through the wrong organization", async () => {
      const name = `ops-${randomBase62(8)}`;
      await admin("POST", "/orgs", { body: { name } });
      const revoked = await admin("POST", `/orgs/${name}/keys/${org.keyId}/revoke`);
      expect(revoked.status).toBe(404);
      expect((await t.request("GET", "/v1/me", { key: org.key })).status).toBe(200);
    });
  });
});
