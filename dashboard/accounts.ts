import { Hono } from "hono";
import { html } from "hono/html";
import { AppError, isAppError } from "../core/index.ts";
import {
  addMembership,
  createMember,
  createSession,
  decoyHash,
  findUserByEmail,
  findUserToken,
  membershipsOf,
  NewUserSchema,
  PasswordSchema,
  revokeSession,
  setPassword,
  useUserToken,
  verifyPassword,
} from "../engines/index.ts";
import type { AppEnv } from "../api/env.ts";
import { csrfField, fieldError, page, type Html } from "./layout.ts";
import { preSessionCsrf } from "./guard.ts";
import { formOf, textOf, type DashboardParts, errorsByField } from "./parts.ts";
import { addressOf, clearSessionCookie, setSessionCookie } from "./session.ts";

/** Sign-in attempts per account and per address in 15 minutes, before "try again later". */
const SIGN_IN_LIMITS = { account: { limit: 10, window_s: 900 }, address: { limit: 50, window_s: 900 } };

/**
 * Accounts: the first owner's setup link, invitations, password resets, sign-in and sign-out.
 * Their forms are sent before there is a session: each carries the pre-session CSRF token
 * (`preSessionCsrf`), which the form guard checks with the origin before any handler here runs.
 * A link is one-time (its row is locked while it is used); a sign-in answers a wrong password and an
 * unknown account alike, in the same time, and is limited per account and per address.
 */
export function accountRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, posted } = parts;
  app.get("/setup/:token", async (c) => {
    const token = await findUserToken(deps.store, deps.clock, "setup", c.req.param("token"));
    if (!token) return c.html(page("Setup link", {}, expiredLink()), 404);
    return c.html(page("Set up Tessera", {}, setupForm(preSessionCsrf(c, deps), {}, {})));
  });
  app.post("/setup/:token", async (c) => {
    const form = await formOf(c);
    const values = {
      email: textOf(form, "email"),
      name: textOf(form, "name"),
      password: textOf(form, "password"),
    };
    const parsed = NewUserSchema.safeParse(values);
    if (!parsed.success) {
      const errors = errorsByField(parsed.error);
      return c.html(page("Set up Tessera", {}, setupForm(preSessionCsrf(c, deps), values, errors)), 422);
    }
    const created = await deps.store
      .transaction(async (tx) => {
        const token = await findUserToken(tx, deps.clock, "setup", c.req.param("token"), true);
        if (!token?.orgId) return undefined;
        const user = await createMember(tx, deps.clock, {
          ...parsed.data,
          orgId: token.orgId,
          role: token.role ?? "owner",
        });
        await useUserToken(tx, deps.clock, token.id);
        return createSession(tx, deps.clock, {
          userId: user.id,
          orgId: token.orgId,
          userAgent: c.req.header("user-agent"),
          address: addressOf(c),
        });
      })
      .catch((error: unknown) => {
        if (isAppError(error) && error.code === "conflict") return error;
        throw error;
      });
    if (!created) return c.html(page("Setup link", {}, expiredLink()), 404);
    if (created instanceof AppError)
      return c.html(
        page("Set up Tessera", {}, setupForm(preSessionCsrf(c, deps), values, { email: created.message })),
        409,
      );
    setSessionCookie(c, deps, created.token);
    return c.redirect("/", 303);
  });

  app.get("/invite/:token", async (c) => {
    const token = await findUserToken(deps.store, deps.clock, "invite", c.req.param("token"));
    if (!token?.email) return c.html(page("Invitation", {}, expiredLink()), 404);
    const existing = await findUserByEmail(deps.store, token.email);
    const form = inviteForm(
      preSessionCsrf(c, deps),
      token.email,
      token.role ?? "viewer",
      Boolean(existing),
      {},
    );
    return c.html(page("Join", {}, form));
  });
  app.post("/invite/:token", async (c) => {
    const form = await formOf(c);
    const outcome = await deps.store.transaction(async (tx) => {
      const token = await findUserToken(tx, deps.clock, "invite", c.req.param("token"), true);
      if (!token?.email || !token.orgId) return { expired: true as const };
      const role = token.role ?? "viewer";
      const existing = await findUserByEmail(tx, token.email);
      let userId: string;
      if (existing) {
        // Someone with an account joins by proving it is theirs.
        if (!(await verifyPassword(existing.password_hash, textOf(form, "password")))) {
          return {
            email: token.email,
            role,
            existing: true,
            errors: { password: "This is not the password of that account." },
          };
        }
        await addMembership(tx, deps.clock, existing.id, token.orgId, role);
        userId = existing.id;
      } else {
        const parsed = NewUserSchema.safeParse({
          email: token.email,
          name: textOf(form, "name"),
          password: textOf(form, "password"),
        });
        if (!parsed.success) {
          const errors = errorsByField(parsed.error);
          return { email: token.email, role, existing: false, errors };
        }
        userId = (await createMember(tx, deps.clock, { ...parsed.data, orgId: token.orgId, role })).id;
      }
      await useUserToken(tx, deps.clock, token.id);
      const session = await createSession(tx, deps.clock, {
        userId,
        orgId: token.orgId,
        userAgent: c.req.header("user-agent"),
        address: addressOf(c),
      });
      return { session };
    });
    if ("expired" in outcome) return c.html(page("Invitation", {}, expiredLink()), 404);
    if ("errors" in outcome) {
      return c.html(
        page(
          "Join",
          {},
          inviteForm(
            preSessionCsrf(c, deps),
            outcome.email ?? "",
            outcome.role ?? "viewer",
            outcome.existing ?? false,
            outcome.errors as Record<string, string>,
          ),
        ),
        422,
      );
    }
    setSessionCookie(c, deps, outcome.session.token);
    return c.redirect("/", 303);
  });

  app.get("/reset/:token", async (c) => {
    const token = await findUserToken(deps.store, deps.clock, "reset", c.req.param("token"));
    if (!token?.email) return c.html(page("Password reset", {}, expiredLink()), 404);
    return c.html(page("New password", {}, resetForm(preSessionCsrf(c, deps), token.email, {})));
  });
  app.post("/reset/:token", async (c) => {
    const form = await formOf(c);
    const password = textOf(form, "password");
    const checked = PasswordSchema.safeParse(password);
    const email = await deps.store.transaction(async (tx) => {
      const token = await findUserToken(tx, deps.clock, "reset", c.req.param("token"), true);
      if (!token?.email) return undefined;
      if (!checked.success) return { email: token.email, error: checked.error.issues[0]!.message };
      await setPassword(tx, deps.clock, token.email, password);
      await useUserToken(tx, deps.clock, token.id);
      return { email: token.email };
    });
    if (!email) return c.html(page("Password reset", {}, expiredLink()), 404);
    if ("error" in email)
      return c.html(
        page("New password", {}, resetForm(preSessionCsrf(c, deps), email.email, { password: email.error! })),
        422,
      );
    return c.html(
      page(
        "Password changed",
        {},
        html`<h1>Password changed</h1>
          <p>
            Every session of this account has ended. <a href="/sign-in">Sign in</a> with the new password.
          </p>`,
      ),
    );
  });

  app.get("/sign-in", (c) =>
    c.html(
      page(
        "Sign in",
        {},
        signInForm(preSessionCsrf(c, deps), "", undefined, returnPath(c.req.query("return_to"))),
      ),
    ),
  );
  app.post("/sign-in", async (c) => {
    const form = await formOf(c);
    const email = String(form.email ?? "")
      .trim()
      .toLowerCase()
      .slice(0, 320);
    const password = String(form.password ?? "");
    const back = returnPath(textOf(form, "return_to"));
    const limits = await Promise.all([
      deps.rateLimiter.hit(`sign-in:account:${email}`, SIGN_IN_LIMITS.account),
      deps.rateLimiter.hit(`sign-in:address:${addressOf(c)}`, SIGN_IN_LIMITS.address),
    ]);
    const blocked = limits.find((decision) => !decision.allowed);
    if (blocked) {
      const minutes = Math.max(1, Math.ceil((blocked.resetAt * 1000 - deps.clock.nowMs()) / 60_000));
      c.header("Retry-After", String(minutes * 60));
      return c.html(
        page(
          "Sign in",
          {},
          signInForm(
            preSessionCsrf(c, deps),
            email,
            `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
            back,
          ),
        ),
        429,
      );
    }
    const user = await findUserByEmail(deps.store, email);
    // The same work and the same answer whether or not the account exists: no enumeration.
    const ok = await verifyPassword(user?.password_hash ?? (await decoyHash()), password);
    const memberships = user && ok ? await membershipsOf(deps.store, user.id) : [];
    if (!user || !ok || memberships.length === 0) {
      const again = signInForm(preSessionCsrf(c, deps), email, "Email or password is wrong.", back);
      return c.html(page("Sign in", {}, again), 401);
    }
    const session = await createSession(deps.store, deps.clock, {
      userId: user.id,
      orgId: memberships[0]!.orgId,
      userAgent: c.req.header("user-agent"),
      address: addressOf(c),
    });
    setSessionCookie(c, deps, session.token);
    return c.redirect(back ?? "/", 303);
  });
  app.post("/sign-out", posted, async (c) => {
    await revokeSession(deps.store, deps.clock, c.var.signed.session.sessionId);
    clearSessionCookie(c);
    return c.redirect("/sign-in", 303);
  });
}

function expiredLink(): Html {
  return html`<h1>This link cannot be used</h1>
    <p>
      It has expired or was used already. An owner can make a new one:
      <code>npm run tessera -- users invite</code> (or <code>users reset-password</code>).
    </p>`;
}

function setupForm(csrf: string, values: Record<string, string>, errors: Record<string, string>): Html {
  return html`<h1>Set up Tessera</h1>
    <p>Become the first owner of this organization: the account you make here manages it in the dashboard.</p>
    <form method="post" class="card" novalidate>
      ${csrfField({ csrf })}
      <label for="name">Your name</label>
      <input id="name" name="name" type="text" autocomplete="name" required value="${values.name ?? ""}" />
      ${fieldError(errors, "name")}
      <label for="email">Email</label>
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="email"
        required
        value="${values.email ?? ""}"
      />
      ${fieldError(errors, "email")}
      <label for="password">Password (at least 10 characters)</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required />
      ${fieldError(errors, "password")}
      <button type="submit">Create the owner account</button>
    </form>`;
}

function inviteForm(
  csrf: string,
  email: string,
  role: string,
  existing: boolean,
  errors: Record<string, string>,
): Html {
  return html`<h1>Join as ${role}</h1>
    <p>This invitation is for <strong>${email}</strong>.</p>
    <form method="post" class="card" novalidate>
      ${csrfField({ csrf })}
      ${
        existing
          ? html`<p>You have an account: confirm it is yours to join.</p>`
          : html`<label for="name">Your name</label>
              <input id="name" name="name" type="text" autocomplete="name" required />
              ${fieldError(errors, "name")}`
      }
      <label for="password"
        >${existing ? "Your password" : "Choose a password (at least 10 characters)"}</label
      >
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="${existing ? "current-password" : "new-password"}"
        required
      />
      ${fieldError(errors, "password")}
      <button type="submit">Join</button>
    </form>`;
}

function resetForm(csrf: string, email: string, errors: Record<string, string>): Html {
  return html`<h1>New password</h1>
    <form method="post" class="card" novalidate>
      ${csrfField({ csrf })}
      <p>For <strong>${email}</strong>. Every session of this account ends when it changes.</p>
      <label for="password">New password (at least 10 characters)</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required />
      ${fieldError(errors, "password")}
      <button type="submit">Set the password</button>
    </form>`;
}

/**
 * Where a sign-in goes back to (an OAuth consent page sends its users here first): a path on this
 * origin only, never `//host` or `/\host`, so the link cannot send anyone elsewhere.
 */
function returnPath(value: string | undefined): string | undefined {
  return value && /^\/(?![/\\])[^\s]{0,2000}$/.test(value) ? value : undefined;
}

function signInForm(csrf: string, email: string, error: string | undefined, back?: string): Html {
  return html`<h1>Sign in</h1>
    <form method="post" action="/sign-in" class="card">
      ${csrfField({ csrf })} ${back ? html`<input type="hidden" name="return_to" value="${back}" />` : ""}
      ${error ? html`<p class="error" role="alert">${error}</p>` : ""}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>`;
}
