import { randomBase62 } from "../../core/index.ts";
import { createMember, createSession, type Role } from "../../engines/index.ts";
import type { TestApp } from "./app.ts";

/** Users are global (not per organization): emails unique to the run keep reruns on a shared database apart. */
const RUN = randomBase62(8).toLowerCase();
let serial = 0;

export interface TestMember {
  userId: string;
  email: string;
  password: string;
  role: Role;
  /** `tessera_session=…` (`__Host-tessera_session=…` on an https origin), for a `cookie` header. */
  cookie: string;
  /** The session's raw cookie value (for a browser context's `addCookies`). */
  token: string;
  /** The session's CSRF token: a form's `_csrf`, or `X-CSRF-Token` on /v1. */
  csrf: string;
}

/**
 * A member of the organization with the role, signed in: a user, its membership and a session,
 * written straight to the store (the sign-in pages have their own tests).
 *
 * @example
 *   const viewer = await signedInMember(t, org.id, "viewer");
 *   await t.request("GET", "/data/invoices", { headers: { cookie: viewer.cookie } });
 */
export async function signedInMember(t: TestApp, orgId: string, role: Role): Promise<TestMember> {
  serial += 1;
  const email = `${role}-${serial}-${RUN}@example.com`;
  const password = "a long enough passphrase";
  const user = await t.store.transaction((tx) =>
    createMember(tx, t.clock, { email, name: `${role} ${serial}`, password, orgId, role }),
  );
  const session = await createSession(t.store, t.clock, { userId: user.id, orgId });
  return {
    userId: user.id,
    email,
    password,
    role,
    cookie: `${cookiePrefix(t)}tessera_session=${session.token}`,
    token: session.token,
    csrf: session.csrf,
  };
}

/** What a browser holds after showing a form sent before there is a session (sign-in, setup, …). */
export interface PreSession {
  /** `tessera_csrf=…` (`__Host-tessera_csrf=…` on an https origin), for a `cookie` header. */
  cookie: string;
  /** The form's `_csrf`: the cookie's HMAC under the server's key. */
  csrf: string;
}

/**
 * Opens the sign-in page as a browser does and keeps its pre-session cookie and CSRF token, which the
 * sign-in, setup, invitation and reset forms all take.
 *
 * @example
 *   const pre = await preSession(t);
 *   await t.request("POST", "/sign-in", { raw: `_csrf=${pre.csrf}&email=…`, headers: { cookie: pre.cookie, … } });
 */
export async function preSession(t: TestApp): Promise<PreSession> {
  const page = await t.request("GET", "/sign-in");
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .find((pair) => pair.startsWith(`${cookiePrefix(t)}tessera_csrf=`));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!cookie || !csrf) throw new Error(`the sign-in page gave no pre-session token (${page.status})`);
  return { cookie, csrf };
}

/** `__Host-` when the app's origin is https (TESSERA_PUBLIC_URL), as its cookies are named. */
const cookiePrefix = (t: TestApp) => (t.config.publicUrl?.startsWith("https:") ? "__Host-" : "");
