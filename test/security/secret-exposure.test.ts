import { beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../core/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Where a secret could leak, probed: a cache keeping the one answer that shows it, a read-only
 * credential reading a signing secret (and so forging deliveries to the organization's own
 * receivers), the request log, and `/metrics` answering anyone who reaches the port.
 */
describe.each(storeKinds())("secret exposure on $name", (kind) => {
  const lines: string[] = [];
  const t = useTestApp(kind, { log: createLogger({ level: "debug", write: (line) => lines.push(line) }) });
  let org: TestOrg;
  let readOnly: string;

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    readOnly = await org.addKey({ name: "ro", kind: "read_only" });
  });

  const endpoint = async () => {
    const created = await t.request("POST", "/v1/webhook_endpoints", {
      key: org.key,
      body: { url: "https://receiver.example.com/hooks", event_types: ["invoice.paid"] },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  };

  it("answers every request that creates or shows a secret with Cache-Control: no-store", async () => {
    const hook = await endpoint();
    const app = await t.request("POST", "/v1/oauth_apps", {
      key: org.key,
      body: {
        name: "Books",
        kind: "confidential",
        redirect_uris: ["https://books.example.com/cb"],
        scopes: ["finance:read"],
      },
    });
    expect(app.status).toBe(201);
    const answers = [
      await t.request("POST", "/v1/api_keys", { key: org.key, body: { name: "k", kind: "read_only" } }),
      await t.request("GET", `/v1/webhook_endpoints/${hook.id}/secret`, { key: org.key }),
      await t.request("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { key: org.key }),
      await t.request("POST", `/v1/oauth_apps/${app.body.id}/rotate_secret`, { key: org.key }),
      app,
    ];
    for (const answer of answers) {
      expect(answer.status).toBeLessThan(300);
      expect(answer.text).toMatch(/sk_live_|whsec_|ocs_/);
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
    // No API answer is cacheable: lists and reads belong to one credential too.
    const list = await t.request("GET", "/v1/contacts", { key: org.key });
    expect(list.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a webhook endpoint's signing secret to a read-only key and to a viewer's Reveal", async () => {
    const hook = await endpoint();
    const read = await t.request("GET", `/v1/webhook_endpoints/${hook.id}/secret`, { key: readOnly });
    expect(read.status).toBe(403);
    expect(read.headers.get("www-authenticate")).toContain('scope="webhooks:write"');
    expect(read.text).not.toContain(hook.secret);

    const viewer = await signedInMember(t, org.id, "viewer");
    const page = await t.request("GET", `/webhooks/${hook.id}`, { headers: { cookie: viewer.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(`action="/webhooks/${hook.id}/secret"`);
    const reveal = await t.request("POST", `/webhooks/${hook.id}/secret`, {
      raw: new URLSearchParams({ _csrf: viewer.csrf }).toString(),
      headers: {
        cookie: viewer.cookie,
        "content-type": "application/x-www-form-urlencoded",
        origin: "http://localhost",
        "sec-fetch-site": "same-origin",
      },
    });
    expect(reveal.status).toBe(403);
    expect(reveal.text).not.toContain(hook.secret);
  });

  it("never writes a secret or a credential into the log", async () => {
    lines.length = 0;
    const key = await t.request("POST", "/v1/api_keys", {
      key: org.key,
      body: { name: "l", kind: "read_only" },
    });
    const hook = await endpoint();
    await t.request("GET", "/v1/contacts", { key: key.body.secret as string });
    const log = lines.join("\n");
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [key.body.secret as string, hook.secret, org.key]) expect(log).not.toContain(secret);
  });

  it("answers /metrics only to a scrape with the metrics or operator token", async () => {
    const anonymous = await t.request("GET", "/metrics");
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain("tessera_http_requests_total");
    const apiKey = await t.request("GET", "/metrics", { key: org.key });
    expect(apiKey.status).toBe(401);
    const wrong = await t.request("GET", "/metrics", { headers: { authorization: "Bearer tsa_test_tokeX" } });
    expect(wrong.status).toBe(401);
    const operator = await t.request("GET", "/metrics", {
      headers: { authorization: "Bearer tsa_test_token" },
    });
    expect(operator.status).toBe(200);
    expect(operator.text).toContain("tessera_http_requests_total");
  });
});

describe.each(storeKinds())("a configured metrics token on $name", (kind) => {
  const token = "metrics-token-for-the-scraper";
  const t = useTestApp(kind, { env: { TESSERA_METRICS_TOKEN: token } });

  it("opens /metrics to TESSERA_METRICS_TOKEN", async () => {
    const scrape = await t.request("GET", "/metrics", { headers: { authorization: `Bearer ${token}` } });
    expect(scrape.status).toBe(200);
    expect((await t.request("GET", "/metrics")).status).toBe(401);
  });
});
