import { request as httpRequest } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { createUserToken, inviteMember, OPERATOR, passwordResetToken } from "../../engines/index.ts";
import { useTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { preSession, signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Cross-site request forgery and oversized bodies, sent as an attacker would: every form the
 * dashboard shows, posted from another site with a valid session and its CSRF token (Origin, Fetch
 * Metadata, Referer, `Origin: null`); login CSRF (a sign-in from another site, without or with a
 * wrong pre-session token); the setup, invitation and reset links; the OAuth consent page's Approve;
 * and bodies past the limit, declared or chunked, that must be refused before they are read (the
 * request is left unfinished: an answer proves the server did not wait for the rest).
 */
const EVIL = "https://evil.example";
const MiB = 1024 * 1024;
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
const sessionCookieOf = (response: { headers: Headers }) =>
  response.headers.getSetCookie().find((line) => /^(__Host-)?tessera_session=[^;]/.test(line));

/** How another site's page gets a browser to post: each way a browser then says where it comes from. */
const FOREIGN: Array<[string, Record<string, string>]> = [
  ["Origin of another site", { origin: EVIL }],
  ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site", origin: EVIL }],
  ["Sec-Fetch-Site: same-site (a sibling host)", { "sec-fetch-site": "same-site" }],
  ["Origin: null (a sandboxed frame)", { origin: "null" }],
  ["only a Referer of another site", { referer: `${EVIL}/page` }],
];

describe.each(storeKinds())("CSRF and origins on $name", (kind) => {
  const t = useTestApp(kind, { http: true });
  let base: string;
  let org: TestOrg;
  let owner: TestMember;

  beforeAll(async () => {
    const health = await t.fetch("/healthz");
    await health.arrayBuffer();
    base = new URL(health.url).origin;
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
  });

  /** A form as a browser posts it; a redirect is the answer, not followed. */
  const post = async (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
    const response = await t.fetch(path, {
      method: "POST",
      body: new URLSearchParams(fields).toString(),
      headers: { ...FORM, ...headers },
      redirect: "manual",
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const signedInStill = async (member: TestMember) =>
    (await t.request("GET", "/", { headers: { cookie: member.cookie } })).status === 200;

  /** What the organization holds, as /v1 shows it: a refused form must leave it as it was. */
  const state = async () => {
    const read = async (path: string) => (await t.request("GET", path, { key: org.key })).body.data;
    return {
      keys: await read("/v1/api_keys"),
      endpoints: await read("/v1/webhook_endpoints"),
      contacts: await read("/v1/contacts"),
      apps: await read("/v1/oauth_apps"),
    };
  };

  it("refuses every form the dashboard shows when another site posts it, with the session and its CSRF token", async () => {
    // A member of its own: were a form taken, it could end this session.
    const victim = await signedInMember(t, org.id, "owner");
    const endpoint = await t.request("POST", "/v1/webhook_endpoints", {
      key: org.key,
      body: { url: "https://receiver.example.com/hooks", event_types: ["invoice.paid"] },
    });
    const contact = await t.request("POST", "/v1/contacts", { key: org.key, body: { name: "Cleo Contact" } });
    const pages = [
      "/",
      "/settings/api-keys",
      "/settings/members",
      "/settings/sessions",
      "/settings/organization",
      "/settings/integrations",
      "/webhooks",
      "/webhooks/new",
      `/webhooks/${endpoint.body.id}`,
      `/webhooks/${endpoint.body.id}/edit`,
      "/functions/new",
      "/data/contacts/new",
      `/data/contacts/${contact.body.id}`,
      `/data/contacts/${contact.body.id}/edit`,
      "/sync",
    ];
    const actions = new Set<string>();
    for (const path of pages) {
      const page = await t.request("GET", path, { headers: { cookie: victim.cookie } });
      expect(page.status, path).toBe(200);
      for (const [, attributes] of page.text.matchAll(/<form\b([^>]*)>/g)) {
        if (!/method="post"/i.test(attributes!)) continue;
        actions.add(/action="([^"]*)"/.exec(attributes!)?.[1] ?? path);
      }
    }
    // The forms that matter most are among them; each page's own are too.
    for (const action of ["/sign-out", "/settings/api-keys", "/settings/members/invite", "/sync"]) {
      expect(actions).toContain(action);
    }
    expect(actions.size).toBeGreaterThan(10);

    const before = await state();
    for (const action of actions) {
      const [how, headers] = FOREIGN[0]!;
      const sent = await post(action, { _csrf: victim.csrf }, { cookie: victim.cookie, ...headers });
      expect(sent.status, `${action} (${how})`).toBe(403);
    }
    for (const [how, headers] of FOREIGN) {
      for (const action of ["/sign-out", "/settings/api-keys", "/settings/sessions/end-all"]) {
        const sent = await post(
          action,
          { _csrf: victim.csrf, kind: "full_access", name: "planted" },
          { cookie: victim.cookie, ...headers },
        );
        expect(sent.status, `${action} (${how})`).toBe(403);
        expect(sent.text).toContain("another site");
      }
    }
    expect(await state()).toEqual(before);
    expect(await signedInStill(victim)).toBe(true);
  });

  it("takes the same forms from this origin: same-origin, a typed URL, its Origin, its Referer, or no header at all", async () => {
    const ours: Array<Record<string, string>> = [
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      { origin: base },
      { referer: `${base}/settings/api-keys` },
      {},
    ];
    for (const headers of ours) {
      const made = await post(
        "/settings/api-keys",
        { _csrf: owner.csrf, kind: "read_only", name: "from this origin" },
        { cookie: owner.cookie, ...headers },
      );
      expect(made.status, JSON.stringify(headers)).toBe(201);
    }
    // The token is still needed from this origin.
    const noToken = await post(
      "/settings/api-keys",
      { kind: "read_only", name: "no token" },
      { cookie: owner.cookie, origin: base },
    );
    expect(noToken.status).toBe(403);
  });

  it("refuses a sign-in posted from another site, even with this browser's valid pre-session token (login CSRF)", async () => {
    for (const [how, headers] of FOREIGN) {
      const pre = await preSession(t);
      const sent = await post(
        "/sign-in",
        { _csrf: pre.csrf, email: owner.email, password: owner.password },
        { cookie: pre.cookie, ...headers },
      );
      expect(sent.status, how).toBe(403);
      expect(sessionCookieOf(sent), how).toBeUndefined();
    }
  });

  it("refuses a sign-in without the pre-session token, with a wrong one, or with another browser's", async () => {
    const credentials = { email: owner.email, password: owner.password };
    const mine = await preSession(t);
    const theirs = await preSession(t);
    const attempts: Array<[string, Record<string, string>, string | undefined]> = [
      ["no token, no cookie", credentials, undefined],
      ["no token", credentials, mine.cookie],
      ["a made-up token", { ...credentials, _csrf: "x".repeat(43) }, mine.cookie],
      ["the token without its cookie", { ...credentials, _csrf: mine.csrf }, undefined],
      ["another browser's token", { ...credentials, _csrf: theirs.csrf }, mine.cookie],
      ["the session's token", { ...credentials, _csrf: owner.csrf }, mine.cookie],
      ["a cookie the attacker wrote", { ...credentials, _csrf: "abc" }, "tessera_csrf=abc"],
    ];
    for (const [how, fields, cookie] of attempts) {
      const sent = await post("/sign-in", fields, { origin: base, ...(cookie ? { cookie } : {}) });
      expect(sent.status, how).toBe(403);
      expect(sessionCookieOf(sent), how).toBeUndefined();
    }
  });

  it("signs in from this origin with the sign-in page's token, and not once the token is two hours old", async () => {
    const pre = await preSession(t);
    const fields = { _csrf: pre.csrf, email: owner.email, password: owner.password };
    const signedIn = await post("/sign-in", fields, { cookie: pre.cookie, "sec-fetch-site": "same-origin" });
    expect(signedIn.status, signedIn.text).toBe(303);
    expect(sessionCookieOf(signedIn)).toBeDefined();
    t.clock.advance(2 * 60 * 60 * 1000);
    const stale = await post("/sign-in", fields, { cookie: pre.cookie, origin: base });
    expect(stale.status).toBe(403);
    expect(stale.text).toContain("reload the page");
  });

  it("refuses the setup, invitation and password reset forms from another site, and leaves their links usable", async () => {
    const member = await signedInMember(t, org.id, "viewer");
    const links = {
      setup: `/setup/${await createUserToken(t.store, t.clock, { purpose: "setup", orgId: org.id, role: "owner", ttlMs: 86_400_000 })}`,
      invite: `/invite/${await inviteMember(t.store, t.clock, org.id, { email: `joiner-${org.id}@example.com`, role: "viewer" }, OPERATOR)}`,
      reset: `/reset/${await passwordResetToken(t.store, t.clock, member.email)}`,
    };
    const fields = {
      email: `setup-${org.id}@example.com`,
      name: "Set Up",
      password: "a long enough passphrase",
    };
    for (const [name, link] of Object.entries(links)) {
      for (const [how, headers] of FOREIGN) {
        const pre = await preSession(t);
        const sent = await post(link, { ...fields, _csrf: pre.csrf }, { cookie: pre.cookie, ...headers });
        expect(sent.status, `${name}: ${how}`).toBe(403);
      }
      const noToken = await post(link, fields, { origin: base });
      expect(noToken.status, `${name} without a token`).toBe(403);
      const pre = await preSession(t);
      const page = await t.request("GET", link, { headers: { cookie: pre.cookie } });
      expect(page.status, name).toBe(200);
      const done = await post(
        link,
        { ...fields, _csrf: csrfOf(page.text) },
        { cookie: pre.cookie, origin: base },
      );
      expect(done.status, `${name}: ${done.text}`).toBe(name === "reset" ? 200 : 303);
    }
  });

  it("refuses the OAuth consent page's Approve from another site, and leaves the request pending", async () => {
    const registered = await t.request("POST", "/v1/oauth_apps", {
      key: org.key,
      body: {
        name: "Ledger Sync",
        redirect_uris: ["https://integration.example/callback"],
        scopes: ["finance:read"],
      },
    });
    expect(registered.status).toBe(201);
    const jar = new Map<string, string>([["session", owner.cookie]]);
    const browse = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, {
        ...init,
        redirect: "manual",
        headers: { ...(init.headers as Record<string, string>), cookie: [...jar.values()].join("; ") },
      });
      for (const line of response.headers.getSetCookie()) {
        const pair = line.split(";")[0]!;
        jar.set(pair.slice(0, pair.indexOf("=")), pair);
      }
      return response;
    };
    const authorize = new URL(`${base}/oauth/auth`);
    authorize.search = new URLSearchParams({
      client_id: registered.body.client_id,
      redirect_uri: "https://integration.example/callback",
      response_type: "code",
      scope: "finance:read",
      state: "s",
    }).toString();
    const started = await browse(authorize.href);
    const interaction = new URL(started.headers.get("location")!, base);
    const page = await browse(`${interaction.href}?org=${org.id}`);
    expect(page.status).toBe(200);
    const body = new URLSearchParams({ _csrf: csrfOf(await page.text()), org: org.id }).toString();
    for (const [how, headers] of FOREIGN) {
      const approved = await browse(`${interaction.href}/approve`, {
        method: "POST",
        body,
        headers: { ...FORM, ...headers },
      });
      expect(approved.status, how).toBe(403);
      expect(approved.headers.get("location")).toBeNull();
    }
    const installed = await t.request("GET", "/v1/oauth_installations", { key: org.key });
    expect(installed.body.data).toEqual([]);
    const approved = await browse(`${interaction.href}/approve`, {
      method: "POST",
      body,
      headers: { ...FORM, origin: base },
    });
    expect(approved.status).toBe(303);
  });

  describe("bodies past the limit", () => {
    it("refuses a 20 MiB sign-in with 413 before it is sent (Content-Length)", async () => {
      const answer = await sendUnfinished(base, "/sign-in", {
        headers: { ...FORM, "content-length": String(20 * MiB) },
        bytes: 64 * 1024,
      });
      expect(answer.status).toBe(413);
      expect(answer.body).toContain("Request body exceeds");
    });

    it("refuses a chunked sign-in past the limit with 413 before it ends", async () => {
      const answer = await sendUnfinished(base, "/sign-in", { headers: FORM, bytes: MiB });
      expect(answer.status).toBe(413);
    });

    it("refuses a signed-in form past TESSERA_MAX_BODY_BYTES with 413 before it ends", async () => {
      const answer = await sendUnfinished(base, "/settings/api-keys", {
        headers: { ...FORM, cookie: owner.cookie, origin: base },
        bytes: t.config.maxBodyBytes + 64 * 1024,
      });
      expect(answer.status).toBe(413);
    });

    it("refuses OAuth token requests past the limit with a 413 problem, declared or chunked", async () => {
      const declared = await sendUnfinished(base, "/oauth/token", {
        headers: { ...FORM, "content-length": String(20 * MiB) },
        bytes: 64 * 1024,
      });
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body)).toMatchObject({ status: 413, code: "payload_too_large" });
      const chunked = await sendUnfinished(base, "/oauth/token", { headers: FORM, bytes: MiB });
      expect(chunked.status).toBe(413);
      for (const path of ["/oauth/token/introspection", "/oauth/token/revocation"]) {
        const answer = await sendUnfinished(base, path, { headers: FORM, bytes: MiB });
        expect(answer.status, path).toBe(413);
      }
    });
  });
});

describe.each(storeKinds())("origins behind a proxy (TESSERA_PUBLIC_URL) on $name", (kind) => {
  const t = useTestApp(kind, { env: { TESSERA_PUBLIC_URL: "https://tessera.example.com" } });
  let owner: TestMember;

  beforeAll(async () => {
    owner = await signedInMember(t, (await t.newOrg()).id, "owner");
  });

  const makeKey = (app: TestApp, headers: Record<string, string>) =>
    app.request("POST", "/settings/api-keys", {
      raw: new URLSearchParams({ _csrf: owner.csrf, kind: "read_only", name: "k" }).toString(),
      headers: { ...FORM, cookie: owner.cookie, ...headers },
    });

  it("takes the public origin and refuses its http twin, another port, and the host the proxy forwards to", async () => {
    expect((await makeKey(t, { origin: "https://tessera.example.com" })).status).toBe(201);
    expect((await makeKey(t, { referer: "https://tessera.example.com/settings/api-keys" })).status).toBe(201);
    for (const origin of [
      "http://tessera.example.com",
      "https://tessera.example.com:8443",
      "http://localhost",
    ]) {
      expect((await makeKey(t, { origin })).status, origin).toBe(403);
    }
  });
});

/**
 * Posts `bytes` of body and never finishes the request, with Content-Length when `headers` declare
 * it, else chunked. An answer can only come from a server that stopped reading at its limit; one
 * that reads the whole body waits, and the probe fails on its deadline instead of hanging.
 */
function sendUnfinished(
  base: string,
  path: string,
  options: { headers: Record<string, string>; bytes: number },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, base), { method: "POST", headers: options.headers });
    const deadline = setTimeout(() => {
      request.destroy();
      reject(
        new Error(`${path}: no answer while the body was unfinished (the server waited to read it all)`),
      );
    }, 5_000);
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        clearTimeout(deadline);
        request.destroy();
        resolve({ status: response.statusCode!, body });
      });
    });
    request.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    const piece = Buffer.alloc(16 * 1024, "a");
    for (let sent = 0; sent < options.bytes; sent += piece.length) request.write(piece);
  });
}
