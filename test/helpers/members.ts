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
  /** `tessera_session=…`, for a `cookie` header. */
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
    cookie: `tessera_session=${session.token}`,
    token: session.token,
    csrf: session.csrf,
  };
}
