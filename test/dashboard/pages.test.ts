import { beforeAll, describe, expect, it } from "vitest";
import { randomBase62 } from "../../core/index.ts";
import {
  createMember,
  createUserToken,
  inviteMember,
  OPERATOR,
  passwordResetToken,
} from "../../engines/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { preSession } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The dashboard's people and sessions, through the app as a browser would use it (forms, cookies,
 * redirects): the first owner's one-time setup link, sign-in (one answer for a wrong password and an
 * unknown account, rate limited), sign-out, CSRF on every form, Settings → API Keys (a secret shown
 * once that then works on /v1, revoke), what a viewer may not do, escaping, and the pages' headers.
 * test/browser/ drives the same pages in Chromium.
 */
/** Users are not per organization: emails unique to this run keep reruns on a shared database apart. */
const RUN = randomBase62(8).toLowerCase();

describe.each(storeKinds())("the dashboard on $name", (kind) => {
  let org: TestOrg;
  const t = useTestApp(kind);
  const PASSWORD = "correct horse battery";

  const form = (fields: Record<string, string | string[]>) =>
    new URLSearchParams(
      Object.entries(fields).flatMap(([name, value]) =>
        [value].flat().map((item) => [name, item] as [string, string]),
      ),
    ).toString();
  /** A form as a browser posts it; those sent before a session (sign-in, setup, …) with the pre-session token. */
  const post = async (path: string, fields: Record<string, string | string[]>, cookie?: string) => {
    const pre =
      /^\/(sign-in|setup|invite|reset)\b/.test(path) && !fields._csrf ? await preSession(t) : undefined;
    const cookies = [cookie, pre?.cookie].filter(Boolean).join("; ");
    return t.request("POST", path, {
      raw: form(pre ? { _csrf: pre.csrf, ...fields } : fields),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(cookies ? { cookie: cookies } : {}),
      },
    });
  };
  const get = (path: string, cookie?: string) =>
    t.request("GET", path, { headers: cookie ? { cookie } : {} });
  const cookieOf = (res: { headers: Headers }) => res.headers.get("set-cookie")!.split(";")[0]!;
  const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)![1]!;
  const setup = async (email: string, name = "Olive Owner") => {
    const token = await createUserToken(t.store, t.clock, {
      purpose: "setup",
      orgId: org.id,
      role: "owner",
      ttlMs: 86_400_000,
    });
    const res = await post(`/setup/${token}`, { email, name, password: PASSWORD });
    expect(res.status, res.text).toBe(303);
    return { token, cookie: cookieOf(res), res };
  };

  beforeAll(async () => {
    org = await t.newOrg();
  });

  it("makes the first owner from a one-time setup link, signed in at once", async () => {
    expect((await get("/setup/not-a-token")).status).toBe(404);
    const token = await createUserToken(t.store, t.clock, {
      purpose: "setup",
      orgId: org.id,
      role: "owner",
      ttlMs: 86_400_000,
    });
    const page = await get(`/setup/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("cache-control")).toBe("no-store");
    const weak = await post(`/setup/${token}`, {
      email: `olive-${RUN}@example.com`,
      name: "Olive",
      password: "short",
    });
    expect(weak.status).toBe(422);
    expect(weak.text).toContain("at least 10 characters");
    const done = await post(`/setup/${token}`, {
      email: `olive-${RUN}@example.com`,
      name: "Olive Owner",
      password: PASSWORD,
    });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/");
    const setCookie = done.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const home = await get("/", cookieOf(done));
    expect(home.status).toBe(200);
    expect(home.text).toContain("Olive Owner");
    expect(home.text).toContain(org.name);
    // Once only.
    expect(
      (await post(`/setup/${token}`, { email: `eve-${RUN}@example.com`, name: "Eve", password: PASSWORD }))
        .status,
    ).toBe(404);
    expect((await get("/")).status).toBe(303);
  });

  it("signs in and out, with one answer for a wrong password and an unknown account", async () => {
    await setup(`sam-${RUN}@example.com`, "Sam Signin");
    const wrong = await post("/sign-in", { email: `sam-${RUN}@example.com`, password: "not the password" });
    const unknown = await post("/sign-in", {
      email: `nobody-${RUN}@example.com`,
      password: "not the password",
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text).toContain("Email or password is wrong.");
    expect(unknown.text).toContain("Email or password is wrong.");
    const signedIn = await post("/sign-in", { email: `SAM-${RUN}@example.com`, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    const cookie = cookieOf(signedIn);
    const home = await get("/", cookie);
    expect(home.text).toContain("Sam Signin");
    // Sign-out needs the page's CSRF token.
    expect((await post("/sign-out", {}, cookie)).status).toBe(403);
    expect((await post("/sign-out", { _csrf: csrfOf(home.text) }, cookie)).status).toBe(303);
    expect((await get("/", cookie)).status).toBe(303);
  });

  it("limits sign-in attempts per account", async () => {
    await setup(`rita-${RUN}@example.com`, "Rita Ratelimit");
    for (let attempt = 0; attempt < 10; attempt++) {
      expect(
        (await post("/sign-in", { email: `rita-${RUN}@example.com`, password: `wrong ${attempt}` })).status,
      ).toBe(401);
    }
    const blocked = await post("/sign-in", { email: `rita-${RUN}@example.com`, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(blocked.text).toContain("Too many sign-in attempts");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("creates a key whose secret is shown once and works on /v1, and revokes it", async () => {
    const { cookie } = await setup(`kim-${RUN}@example.com`, "Kim Keys");
    const keys = await get("/settings/api-keys", cookie);
    expect(keys.status).toBe(200);
    expect((await post("/settings/api-keys", { kind: "read_only", name: "no csrf" }, cookie)).status).toBe(
      403,
    );
    const created = await post(
      "/settings/api-keys",
      {
        _csrf: csrfOf(keys.text),
        kind: "engine",
        engines: ["finance", "growth"],
        access: "write",
        name: "CRM sync",
      },
      cookie,
    );
    expect(created.status, created.text).toBe(201);
    const secret = /id="new-secret">([^<]+)</.exec(created.text)![1]!;
    expect(secret).toMatch(/^sk_live_/);
    const me = await t.request("GET", "/v1/me", { key: secret });
    expect(me.status).toBe(200);
    expect(me.body.credential.scopes).toEqual(["finance:write", "growth:write"]);
    const [row] = await t.store.query<{ id: string; created_by_user: string }>(
      "SELECT id, created_by_user FROM api_keys WHERE org_id = $1 AND name = 'CRM sync'",
      [org.id],
    );
    expect(row!.created_by_user).toMatch(/^usr_/);
    const viaApi = await t.request("GET", `/v1/api_keys/${row!.id}`, { key: org.key });
    expect(viaApi.body.created_by_user).toBe(row!.created_by_user);
    // Listed again, with who made it, and the secret is nowhere.
    const listed = await get("/settings/api-keys", cookie);
    expect(listed.text).toMatch(/CRM sync[\s\S]*?<td>Kim Keys<\/td>/);
    expect(listed.text).not.toContain(secret);
    const revoked = await post(
      `/settings/api-keys/${row!.id}/revoke`,
      { _csrf: csrfOf(listed.text) },
      cookie,
    );
    expect(revoked.status).toBe(303);
    expect((await t.request("GET", "/v1/me", { key: secret })).status).toBe(401);
    const invalid = await post("/settings/api-keys", { _csrf: csrfOf(listed.text), kind: "engine" }, cookie);
    expect(invalid.status).toBe(422);
    expect(invalid.text).toContain("engine keys need at least one engine");
  });

  it("lets an invited person join with the invitation's role, once; an account holder joins by its password", async () => {
    const token = await inviteMember(
      t.store,
      t.clock,
      org.id,
      { email: `dev-${RUN}@example.com`, role: "developer" },
      OPERATOR,
    );
    const page = await get(`/invite/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Join as developer");
    const joined = await post(`/invite/${token}`, { name: "Dana Dev", password: PASSWORD });
    expect(joined.status, joined.text).toBe(303);
    const me = await t.request("GET", "/v1/me", { headers: { cookie: cookieOf(joined) } });
    expect(me.body.credential).toMatchObject({
      type: "user",
      role: "developer",
      user: { email: `dev-${RUN}@example.com` },
    });
    expect((await get(`/invite/${token}`)).status).toBe(404);
    await expect(
      inviteMember(t.store, t.clock, org.id, { email: `DEV-${RUN}@example.com`, role: "viewer" }, OPERATOR),
    ).rejects.toThrow(/already a member/);
    const elsewhere = await t.newOrg();
    const second = await inviteMember(
      t.store,
      t.clock,
      elsewhere.id,
      { email: `dev-${RUN}@example.com`, role: "admin" },
      OPERATOR,
    );
    expect((await post(`/invite/${second}`, { password: "not the password" })).status).toBe(422);
    expect((await post(`/invite/${second}`, { password: PASSWORD })).status).toBe(303);
  });

  it("resets a password from a one-time link and ends every session of the account", async () => {
    const { cookie } = await setup(`pat-${RUN}@example.com`, "Pat Reset");
    const token = await passwordResetToken(t.store, t.clock, `pat-${RUN}@example.com`);
    expect((await post(`/reset/${token}`, { password: "short" })).status).toBe(422);
    const changed = await post(`/reset/${token}`, { password: "a brand new passphrase" });
    expect(changed.status).toBe(200);
    expect((await get("/", cookie)).status).toBe(303);
    expect((await post("/sign-in", { email: `pat-${RUN}@example.com`, password: PASSWORD })).status).toBe(
      401,
    );
    expect(
      (await post("/sign-in", { email: `pat-${RUN}@example.com`, password: "a brand new passphrase" }))
        .status,
    ).toBe(303);
    expect((await post(`/reset/${token}`, { password: "another passphrase" })).status).toBe(404);
  });

  it("lets an owner invite from Settings → Members, change a role, and never lose the last owner", async () => {
    const owner = await t.newOrg();
    const token = await createUserToken(t.store, t.clock, {
      purpose: "setup",
      orgId: owner.id,
      role: "owner",
      ttlMs: 86_400_000,
    });
    const cookie = cookieOf(
      await post(`/setup/${token}`, {
        email: `boss-${RUN}@example.com`,
        name: "Bo Boss",
        password: PASSWORD,
      }),
    );
    const page = await get("/settings/members", cookie);
    expect(page.text).toContain("Bo Boss");
    const invited = await post(
      "/settings/members/invite",
      { _csrf: csrfOf(page.text), email: `new-${RUN}@example.com`, role: "viewer" },
      cookie,
    );
    expect(invited.status).toBe(201);
    const link = /id="invite-link">([^<]+)</.exec(invited.text)![1]!;
    const joined = await post(new URL(link).pathname, { name: "Nia New", password: PASSWORD });
    expect(joined.status).toBe(303);
    const newcomer = cookieOf(joined);
    const listed = await get("/settings/members", cookie);
    // Both joined at the same (fake) instant: find each by name, not by place in the list.
    const idOf = new Map(
      [
        ...listed.text.matchAll(
          /action="\/settings\/members\/(usr_[A-Za-z0-9]+)\/role"[\s\S]*?aria-label="Role of ([^"]+)"/g,
        ),
      ].map((m) => [m[2]!, m[1]!]),
    );
    expect(idOf.size).toBe(2);
    const [bossId, niaId] = [idOf.get("Bo Boss")!, idOf.get("Nia New")!];
    // A viewer cannot manage members.
    expect(
      (
        await post(
          `/settings/members/${bossId}/remove`,
          { _csrf: csrfOf((await get("/settings/members", newcomer)).text) },
          newcomer,
        )
      ).status,
    ).toBe(403);
    // The last owner cannot step down.
    expect(
      (await post(`/settings/members/${bossId}/role`, { _csrf: csrfOf(listed.text), role: "viewer" }, cookie))
        .status,
    ).toBe(409);
    // A role change ends the member's sessions in this organization.
    expect(
      (await post(`/settings/members/${niaId}/role`, { _csrf: csrfOf(listed.text), role: "admin" }, cookie))
        .status,
    ).toBe(303);
    expect((await get("/", newcomer)).status).toBe(303);
    const again = cookieOf(await post("/sign-in", { email: `new-${RUN}@example.com`, password: PASSWORD }));
    const me = await t.request("GET", "/v1/me", { headers: { cookie: again } });
    expect(me.body.credential.role).toBe("admin");
  });

  it("lists this account's sessions and signs out everywhere", async () => {
    const { cookie } = await setup(`multi-${RUN}@example.com`, "Max Multi");
    const second = cookieOf(
      await post("/sign-in", { email: `multi-${RUN}@example.com`, password: PASSWORD }),
    );
    const sessions = await get("/settings/sessions", cookie);
    expect(sessions.status).toBe(200);
    expect(sessions.text.match(/action="\/settings\/sessions\/ses_/g)).toHaveLength(2);
    expect((await post("/settings/sessions/end-all", { _csrf: csrfOf(sessions.text) }, cookie)).status).toBe(
      303,
    );
    expect((await get("/", cookie)).status).toBe(303);
    expect((await get("/", second)).status).toBe(303);
  });

  it("shows a viewer the keys but no way to change them, and refuses it if it tries", async () => {
    await t.store.transaction((tx) =>
      createMember(tx, t.clock, {
        email: `vic-${RUN}@example.com`,
        name: "Vic Viewer",
        password: PASSWORD,
        orgId: org.id,
        role: "viewer",
      }),
    );
    const cookie = cookieOf(await post("/sign-in", { email: `vic-${RUN}@example.com`, password: PASSWORD }));
    const keys = await get("/settings/api-keys", cookie);
    expect(keys.text).not.toContain("Create a key");
    expect(keys.text).not.toContain(">Revoke<");
    const tried = await post("/settings/api-keys", { _csrf: csrfOf(keys.text), kind: "full_access" }, cookie);
    expect(tried.status).toBe(403);
  });

  it("lets the API act as the signed-in user, and take changes only with the CSRF token from this origin", async () => {
    const { cookie } = await setup(`api-${RUN}@example.com`, "Ada Api");
    const me = await t.request("GET", "/v1/me", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.credential).toMatchObject({
      type: "user",
      role: "owner",
      scopes: ["*"],
      user: { email: `api-${RUN}@example.com` },
    });
    const home = await get("/", cookie);
    const csrf = csrfOf(home.text);
    const body = { name: "Made in the dashboard" };
    const noToken = await t.request("POST", "/v1/contacts", {
      body,
      headers: { cookie, origin: "http://localhost" },
    });
    expect(noToken.status).toBe(403);
    const crossSite = await t.request("POST", "/v1/contacts", {
      body,
      headers: { cookie, "x-csrf-token": csrf, "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const made = await t.request("POST", "/v1/contacts", {
      body,
      headers: { cookie, "x-csrf-token": csrf, "sec-fetch-site": "same-origin" },
    });
    expect(made.status, made.text).toBe(201);
    const ended = await post("/sign-out", { _csrf: csrf }, cookie);
    expect(ended.status).toBe(303);
    expect((await t.request("GET", "/v1/me", { headers: { cookie } })).status).toBe(401);
  });

  it("asks SYNC from the panel, shows the reply escaped, and approves its proposal with a button", async () => {
    const { cookie } = await setup(`sync-panel-${RUN}@example.com`, "Sal Sync");
    const invoice = await t.request("POST", "/v1/invoices", {
      key: org.key,
      body: {
        client: "<script>alert(1)</script> Ltd",
        amount: "120",
        currency: "EUR",
        due_date: "2020-01-01",
      },
    });
    expect(invoice.status).toBe(201);
    const panel = await get("/sync", cookie);
    expect(panel.status).toBe(200);
    expect(panel.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(panel.headers.get("cache-control")).toBe("no-store");
    const asked = await post(
      "/sync",
      { _csrf: csrfOf(panel.text), message: `mark ${invoice.body.number} as paid` },
      cookie,
    );
    expect(asked.status).toBe(303);
    const location = asked.headers.get("location")!;
    expect(location).toMatch(/^\/sync\?conversation=conv_/);
    const shown = await get(location, cookie);
    expect(shown.text).toContain(
      `Mark ${invoice.body.number} (&lt;script&gt;alert(1)&lt;/script&gt; Ltd, 120.00 EUR) as paid`,
    );
    expect(shown.text).not.toContain("<script>alert(1)");
    const action = /action="\/sync\/actions\/(act_[A-Za-z0-9]+)\/approve"/.exec(shown.text)![1]!;
    const conversation = new URL(location, "http://x").searchParams.get("conversation")!;
    const approved = await post(
      `/sync/actions/${action}/approve`,
      { _csrf: csrfOf(shown.text), conversation_id: conversation },
      cookie,
    );
    expect(approved.status).toBe(303);
    const after = await t.request("GET", `/v1/invoices/${invoice.body.id}`, { key: org.key });
    expect(after.body.status).toBe("paid");
    const decided = await t.request("GET", `/v1/sync/actions/${action}`, { key: org.key });
    expect(decided.body.decided_by).toMatchObject({ type: "user" });
    const again = await post(
      `/sync/actions/${action}/approve`,
      { _csrf: csrfOf(shown.text), conversation_id: conversation },
      cookie,
    );
    const refused = new URL(again.headers.get("location")!, "http://x").searchParams.get("error");
    expect(refused).toContain("already completed");
    expect((await get(again.headers.get("location")!, cookie)).text).toContain("already completed");
  });

  it("escapes every value from the data, and leaves the API's headers alone", async () => {
    const { cookie } = await setup(`xss-${RUN}@example.com`, "<img src=x onerror=alert(1)>");
    const home = await get("/", cookie);
    expect(home.text).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(home.text).not.toContain("<img src=x");
    const api = await t.request("GET", "/v1/me", { key: org.key });
    expect(api.headers.get("content-security-policy")).toBeNull();
    const css = await get("/dashboard/assets/app.css");
    expect(css.headers.get("content-type")).toContain("text/css");
  });

  it("shows a page's error as a page with its status and request id, under the dashboard's headers", async () => {
    const { cookie } = await setup(`err-${RUN}@example.com`);
    const sessions = await get("/settings/sessions", cookie);
    const missing = await post("/settings/sessions/ses_nope/end", { _csrf: csrfOf(sessions.text) }, cookie);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("text/html");
    expect(missing.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(missing.headers.get("cache-control")).toBe("no-store");
    expect(missing.text).toContain("No such session");
    expect(missing.text).toMatch(/Request id: <code>req_/);
    // The API's errors stay problem+json.
    const api = await t.request("GET", "/v1/invoices/inv_nope", { key: org.key });
    expect(api.headers.get("content-type")).toContain("application/problem+json");
  });
});
