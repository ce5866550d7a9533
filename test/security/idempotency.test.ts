import { beforeAll, describe, expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Probes of `Idempotency-Key` as an attacker inside the organization would send them: a weaker
 * credential replays a stronger one's request (same key, same body) hoping for its stored answer.
 * A stored answer replays only to the credential that made it, with the scopes it had then
 * (api/middleware/idempotency.ts); anyone else runs the request afresh, through the route's own
 * scope check.
 */
describe.each(storeKinds())("idempotency replays on $name", (kind) => {
  const t = useTestApp(kind);
  let org: TestOrg;
  let readOnly: string;
  let growth: string;

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    readOnly = await org.addKey({ name: "ro", kind: "read_only" });
    growth = await org.addKey({ name: "growth", kind: "engine", engines: ["growth"], access: "write" });
  });

  const newKey = () => `idem-${randomBase62(16)}`;
  const post = (key: string, path: string, body: unknown, idempotencyKey: string) =>
    t.request("POST", path, { key, body, headers: { "idempotency-key": idempotencyKey } });

  it("never hands a full-access key's new API key to a read-only or engine key sending the same request", async () => {
    const idem = newKey();
    const body = { name: "ci", kind: "full_access" };
    const first = await post(org.key, "/v1/api_keys", body, idem);
    expect(first.status).toBe(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^sk_live_/);

    for (const weaker of [readOnly, growth]) {
      const replayed = await post(weaker, "/v1/api_keys", body, idem);
      expect(replayed.status).toBe(403);
      expect(replayed.body.code).toBe("insufficient_scope");
      expect(replayed.headers.get("idempotent-replayed")).toBeNull();
      expect(replayed.text).not.toContain(secret);
      expect(replayed.text).not.toContain("sk_live_");
    }
  });

  it("never hands a webhook endpoint's signing secret to a read-only key sending the same request", async () => {
    const idem = newKey();
    const body = { url: "https://receiver.example.com/hooks", event_types: ["invoice.paid"] };
    const first = await post(org.key, "/v1/webhook_endpoints", body, idem);
    expect(first.status).toBe(201);
    const replayed = await post(readOnly, "/v1/webhook_endpoints", body, idem);
    expect(replayed.status).toBe(403);
    expect(replayed.text).not.toContain("whsec_");
  });

  it("runs another key's request afresh even when it could have made it itself", async () => {
    const other = await org.addKey({ name: "second full key", kind: "full_access" });
    const idem = newKey();
    const first = await post(org.key, "/v1/contacts", { name: "Ada" }, idem);
    const second = await post(other, "/v1/contacts", { name: "Ada" }, idem);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    // The maker itself still gets its own answer back.
    const again = await post(org.key, "/v1/contacts", { name: "Ada" }, idem);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
  });

  it("replays a key's secret only to its creator, and keeps it sealed at rest", async () => {
    const idem = newKey();
    const body = { name: "sealed", kind: "read_only" };
    const first = await post(org.key, "/v1/api_keys", body, idem);
    const again = await post(org.key, "/v1/api_keys", body, idem);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.secret).toBe(first.body.secret);
    expect(again.headers.get("cache-control")).toBe("no-store");
    const rows = await t.store.query<{ response_body: string }>(
      "SELECT response_body FROM idempotency_keys WHERE org_id = $1 AND key = $2",
      [org.id, idem],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.response_body).not.toContain(first.body.secret as string);
  });

  it("does not replay to a member whose role was lowered since: the request meets the scope check again", async () => {
    const member = await signedInMember(t, org.id, "owner");
    const session = {
      cookie: member.cookie,
      "x-csrf-token": member.csrf,
      origin: "http://localhost",
      "sec-fetch-site": "same-origin",
    };
    const idem = newKey();
    const body = { name: "from the owner", kind: "read_only" };
    const send = () =>
      t.request("POST", "/v1/api_keys", { body, headers: { ...session, "idempotency-key": idem } });
    const first = await send();
    expect(first.status).toBe(201);
    await t.store.query("UPDATE memberships SET role = 'viewer' WHERE user_id = $1 AND org_id = $2", [
      member.userId,
      org.id,
    ]);
    const after = await send();
    expect(after.status).toBe(403);
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect(after.text).not.toContain(first.body.secret as string);
  });
});
