import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Settings → Audit log through the app as a browser would use it: the organization's management
 * actions, newest first, with who did them by name (a key's name, a member's name and email, the
 * operator), filtered by action and by actor, a page at a time, every value escaped.
 */
describe.each(storeKinds())("the audit log page on $name", (kind) => {
  const t = useTestApp(kind);
  let org: TestOrg;
  let owner: TestMember;
  let endpointId: string;
  const KEY_NAME = `<script>alert("key")</script>`;
  /** The name `signedInMember` gives (`owner 3`), from its email (`owner-3-…`). */
  const nameOf = (member: TestMember) => member.email.split("-").slice(0, 2).join(" ");

  const get = (path: string, member: TestMember = owner) =>
    t.request("GET", path, { headers: { cookie: member.cookie } });
  /** The rows of the audit table: each row's cells as text, tags and spacing removed. */
  const rowsOf = (text: string) =>
    [...(/<tbody>([\s\S]*)<\/tbody>/.exec(text)?.[1] ?? "").matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
      [...row[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((cell) =>
        cell[1]!
          .replace(/<wbr \/>/g, "")
          .replace(/<[^>]+>/g, " ")
          .replace(/\s+/g, " ")
          .trim(),
      ),
    );

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
    const named = await t.request("POST", "/v1/api_keys", {
      key: org.key,
      body: { kind: "full_access", name: KEY_NAME },
    });
    expect(named.status).toBe(201);
    t.clock.advance(60_000);
    const endpoint = await t.request("POST", "/v1/webhook_endpoints", {
      key: named.body.secret,
      body: { url: "https://example.com/audit-page" },
    });
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.body.id;
    t.clock.advance(60_000);
    const invited = await t.request("POST", `/admin/v1/orgs/${org.id}/invitations`, {
      body: { email: "page-invitee@example.com", role: "viewer" },
      headers: { authorization: "Bearer tsa_test_token" },
    });
    expect(invited.status).toBe(201);
  });

  it("shows each action with its time, kind, actor by name and object, newest first", async () => {
    const page = await get("/settings/audit-log");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/settings/audit-log" aria-current="page">Audit log</a>');
    const rows = rowsOf(page.text);
    const row = (type: string) => rows.find((cells) => cells[1] === type)!;
    const invited = row("member.invited");
    expect(invited.slice(0, 3)).toEqual(["2025-03-15 10:02:00 UTC", "member.invited", "Operator (CLI)"]);
    expect(invited[3]).toMatch(/^member page-invitee@example\.com utok_\w+$/);
    // Newest first: the invitation came after the endpoint.
    expect(rows.indexOf(invited)).toBeLessThan(rows.indexOf(row("webhook_endpoint.created")));
    // The key's name, escaped: the page shows it as text.
    expect(row("webhook_endpoint.created")[2]).toBe(
      "&lt;script&gt;alert(&quot;key&quot;)&lt;/script&gt; API key",
    );
    expect(page.text).not.toContain(KEY_NAME);
    expect(row("webhook_endpoint.created")[3]).toBe(
      `webhook_endpoint https://example.com/audit-page ${endpointId}`,
    );
    expect(row("member.joined")[2]).toBe(`${nameOf(owner)} ${owner.email} · Dashboard user`);
    expect(page.text).toMatch(/href="\/events\/evt_\w+"><code>member.<wbr \/>invited<\/code><\/a>/);
  });

  it("filters by action and by actor, and an actor's name links to their actions", async () => {
    const byType = rowsOf((await get("/settings/audit-log?type=webhook_endpoint.*")).text);
    expect(byType.map((row) => row[1])).toEqual(["webhook_endpoint.created"]);
    const byOperator = rowsOf((await get("/settings/audit-log?actor_type=cli")).text);
    expect(byOperator.map((row) => row[1]).sort()).toEqual(["api_key.created", "member.invited"]);
    const page = await get("/settings/audit-log");
    const link = /href="(\/settings\/audit-log\?actor_type=user&amp;actor_id=usr_\w+)"/.exec(page.text)![1]!;
    const mine = await get(link.replaceAll("&amp;", "&"));
    expect(rowsOf(mine.text).map((row) => row[1])).toEqual(["member.joined"]);
    expect(mine.text).toContain("Actions by");
    const unknown = await get("/settings/audit-log?type=contact.created");
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("Unknown filter: showing every action.");
  });

  it("pages fifty actions at a time, newest first", async () => {
    for (let i = 0; i < 50; i += 1) {
      const changed = await t.request("PATCH", `/v1/webhook_endpoints/${endpointId}`, {
        key: org.key,
        body: { description: `change ${i}` },
      });
      expect(changed.status).toBe(200);
    }
    const first = await get("/settings/audit-log");
    expect(rowsOf(first.text)).toHaveLength(50);
    expect(first.text).toContain('href="/settings/audit-log?page=2" rel="next"');
    const second = rowsOf((await get("/settings/audit-log?page=2")).text);
    // Two keys made, a member joined, an endpoint made and changed fifty times, an invitation.
    expect(second).toHaveLength(55 - 50);
  });

  it("is open to the roles that see keys and events, and to no one signed out", async () => {
    const viewer = await signedInMember(t, org.id, "viewer");
    expect((await get("/settings/audit-log", viewer)).status).toBe(200);
    const signedOut = await t.request("GET", "/settings/audit-log");
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toBe("/sign-in");
    // Another organization's page shows its own actions only.
    const other = await t.newOrg();
    const stranger = await signedInMember(t, other.id, "owner");
    expect((await get("/settings/audit-log", stranger)).text).not.toContain(endpointId);
  });
});
