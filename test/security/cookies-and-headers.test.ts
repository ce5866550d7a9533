import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.ts";
import { preSession, signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * The dashboard's cookies as a browser receives them: on an https origin `__Host-` prefixed (Secure,
 * `Path=/`, no `Domain`), so a sibling host or a plain-http page can neither set nor shadow them, and
 * a cookie without the prefix is not a session; HttpOnly, SameSite; names that start `tessera_`
 * after the prefix (function invocations strip those); sign-out clearing the name that was set.
 */
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const ORIGIN = "https://tessera.example.com";

/** Each Set-Cookie line as name, value and attributes (lowercased names, as RFC 6265 compares them). */
function cookiesOf(
  headers: Headers,
): Array<{ name: string; value: string; attributes: Map<string, string> }> {
  return headers.getSetCookie().map((line) => {
    const [pair, ...rest] = line.split(";").map((part) => part.trim());
    const at = pair!.indexOf("=");
    const attributes = new Map(
      rest.map((part) => {
        const [key, ...value] = part.split("=");
        return [key!.toLowerCase(), value.join("=")] as [string, string];
      }),
    );
    return { name: pair!.slice(0, at), value: pair!.slice(at + 1), attributes };
  });
}

describe.each(storeKinds())("cookies on an https origin on $name", (kind) => {
  const t = useTestApp(kind, { env: { TESSERA_PUBLIC_URL: ORIGIN } });
  let owner: TestMember;

  beforeAll(async () => {
    owner = await signedInMember(t, (await t.newOrg()).id, "owner");
  });

  const signIn = async () => {
    const pre = await preSession(t);
    return t.request("POST", "/sign-in", {
      raw: new URLSearchParams({ _csrf: pre.csrf, email: owner.email, password: owner.password }).toString(),
      headers: { ...FORM, cookie: pre.cookie, origin: ORIGIN },
    });
  };

  it("sets the pre-session cookie as __Host-tessera_csrf: Secure, Path=/, no Domain, HttpOnly, SameSite=Strict", async () => {
    const page = await t.request("GET", "/sign-in");
    const [cookie] = cookiesOf(page.headers);
    expect(cookie?.name).toBe("__Host-tessera_csrf");
    expect(cookie?.attributes.has("secure")).toBe(true);
    expect(cookie?.attributes.get("path")).toBe("/");
    expect(cookie?.attributes.has("domain")).toBe(false);
    expect(cookie?.attributes.has("httponly")).toBe(true);
    expect(cookie?.attributes.get("samesite")).toBe("Strict");
    expect(Number(cookie?.attributes.get("max-age"))).toBeLessThanOrEqual(2 * 60 * 60);
  });

  it("signs in with a __Host-tessera_session cookie: Secure, Path=/, no Domain, HttpOnly, SameSite=Lax", async () => {
    const signedIn = await signIn();
    expect(signedIn.status, signedIn.text).toBe(303);
    const [cookie, ...others] = cookiesOf(signedIn.headers);
    expect(others).toEqual([]);
    expect(cookie?.name).toBe("__Host-tessera_session");
    expect(cookie?.attributes.has("secure")).toBe(true);
    expect(cookie?.attributes.get("path")).toBe("/");
    expect(cookie?.attributes.has("domain")).toBe(false);
    expect(cookie?.attributes.has("httponly")).toBe(true);
    expect(cookie?.attributes.get("samesite")).toBe("Lax");
    const session = `${cookie!.name}=${cookie!.value}`;
    expect((await t.request("GET", "/", { headers: { cookie: session } })).status).toBe(200);
    expect((await t.request("GET", "/v1/me", { headers: { cookie: session } })).status).toBe(200);
  });

  it("takes no session from a cookie without the prefix, which a sibling host or an http page could have set", async () => {
    const planted = `tessera_session=${owner.token}`;
    expect((await t.request("GET", "/", { headers: { cookie: planted } })).status).toBe(303);
    expect((await t.request("GET", "/v1/me", { headers: { cookie: planted } })).status).toBe(401);
    const pre = await preSession(t);
    const unprefixed = pre.cookie.replace(/^__Host-/, "");
    const refused = await t.request("POST", "/sign-in", {
      raw: new URLSearchParams({ _csrf: pre.csrf, email: owner.email, password: owner.password }).toString(),
      headers: { ...FORM, cookie: unprefixed, origin: ORIGIN },
    });
    expect(refused.status).toBe(403);
  });

  it("clears the __Host- session cookie with its own attributes at sign-out, and the session ends", async () => {
    const signedIn = await signIn();
    const [cookie] = cookiesOf(signedIn.headers);
    const session = `${cookie!.name}=${cookie!.value}`;
    const home = await t.request("GET", "/", { headers: { cookie: session } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home.text)![1]!;
    const out = await t.request("POST", "/sign-out", {
      raw: new URLSearchParams({ _csrf: csrf }).toString(),
      headers: { ...FORM, cookie: session, origin: ORIGIN },
    });
    expect(out.status).toBe(303);
    const cleared = cookiesOf(out.headers).find((line) => line.name === "__Host-tessera_session");
    expect(cleared?.value).toBe("");
    expect(cleared?.attributes.get("max-age")).toBe("0");
    expect(cleared?.attributes.has("secure")).toBe(true);
    expect(cleared?.attributes.get("path")).toBe("/");
    expect((await t.request("GET", "/", { headers: { cookie: session } })).status).toBe(303);
  });

  it("answers a refused form with a 403 page that sets no cookie and is never cached or framed", async () => {
    const pre = await preSession(t);
    const refused = await t.request("POST", "/sign-in", {
      raw: new URLSearchParams({ _csrf: pre.csrf, email: owner.email, password: owner.password }).toString(),
      headers: { ...FORM, cookie: pre.cookie, origin: "https://evil.example" },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    expect(cookiesOf(refused.headers)).toEqual([]);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(refused.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("names every cookie it sets tessera_… after the prefix", async () => {
    const answers = [await t.request("GET", "/sign-in"), await signIn()];
    for (const answer of answers) {
      for (const cookie of cookiesOf(answer.headers)) expect(cookie.name).toMatch(/^__Host-tessera_/);
    }
  });
});

describe.each(storeKinds())("cookies on an http origin on $name", (kind) => {
  const t = useTestApp(kind);

  it("sets tessera_csrf and tessera_session without Secure (a browser would drop them), HttpOnly", async () => {
    const owner = await signedInMember(t, (await t.newOrg()).id, "owner");
    const page = await t.request("GET", "/sign-in");
    const [pre] = cookiesOf(page.headers);
    expect(pre?.name).toBe("tessera_csrf");
    expect(pre?.attributes.has("secure")).toBe(false);
    expect(pre?.attributes.has("httponly")).toBe(true);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const signedIn = await t.request("POST", "/sign-in", {
      raw: new URLSearchParams({ _csrf: csrf, email: owner.email, password: owner.password }).toString(),
      headers: { ...FORM, cookie: `${pre!.name}=${pre!.value}` },
    });
    const [session] = cookiesOf(signedIn.headers);
    expect(session?.name).toBe("tessera_session");
    expect(session?.attributes.has("secure")).toBe(false);
    expect(session?.attributes.has("httponly")).toBe(true);
    expect(session?.attributes.get("samesite")).toBe("Lax");
  });
});
