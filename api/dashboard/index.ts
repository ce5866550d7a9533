import { Hono, type Context } from "hono";
import { html } from "hono/html";
import { AppError, isAppError } from "../../core/index.ts";
import {
  ApiKeyCreateSchema,
  createApiKey,
  createMember,
  createSession,
  createUserToken,
  csrfMatches,
  decoyHash,
  ENGINES,
  findUserByEmail,
  findUserToken,
  hasScope,
  listApiKeys,
  membershipsOf,
  NewUserSchema,
  PasswordSchema,
  setPassword,
  addMembership,
  revokeApiKey,
  revokeSession,
  useUserToken,
  verifyPassword,
  type SessionPrincipal,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { APP_CSS } from "./assets.ts";
import { CSP, fieldError, page, type Html } from "./layout.ts";
import { syncPanelRoutes } from "./sync-panel.ts";
import { addressOf, clearSessionCookie, noStore, sessionOf, setSessionCookie } from "./session.ts";

export { createUserToken };

/** Sign-in attempts per account and per address in 15 minutes, before "try again later". */
const SIGN_IN_LIMITS = { account: { limit: 10, window_s: 900 }, address: { limit: 50, window_s: 900 } };

type Signed = { session: SessionPrincipal; csrf: string };

/** The dashboard's paths (everything else under `/` is the API's). */
const PAGES = [
  "/",
  "/setup/*",
  "/invite/*",
  "/reset/*",
  "/sign-in",
  "/sign-out",
  "/settings/*",
  "/dashboard/*",
];

/**
 * The dashboard, served at `/` by the same process: first-owner setup (`/setup/{token}`),
 * sign-in and sign-out, the overview, and Settings → API Keys. Pages are rendered on the
 * server (layout.ts); every state-changing form carries the session's CSRF token.
 */
export function dashboardRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Mounted at `/` beside `/v1`: its headers go on its own paths only.
  for (const path of PAGES) {
    app.use(path, noStore());
    app.use(path, async (c, next) => {
      await next();
      c.header("Content-Security-Policy", CSP);
    });
  }
  app.get("/dashboard/assets/app.css", (c) => {
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(APP_CSS);
  });

  /** The signed-in user, or a redirect to sign in. */
  const signedIn = async (c: Context<AppEnv>): Promise<Signed | Response> =>
    (await sessionOf(c, deps)) ?? c.redirect("/sign-in", 303);
  /** A state-changing form: signed in, and the CSRF token matches; else 403. */
  const posted = async (
    c: Context<AppEnv>,
  ): Promise<{ signed: Signed; form: Record<string, string | string[]> } | Response> => {
    const signed = await sessionOf(c, deps);
    if (!signed) return c.redirect("/sign-in", 303);
    const form = await formOf(c);
    const csrf = typeof form._csrf === "string" ? form._csrf : c.req.header("x-csrf-token");
    if (!csrfMatches(signed.session, csrf)) {
      return c.html(
        page(
          "Forbidden",
          nav(signed),
          html`<h1>Forbidden</h1>
            <p>This form has expired: reload the page and try again.</p>`,
        ),
        403,
      );
    }
    return { signed, form };
  };
  const nav = (signed: Signed, active?: string) => ({
    who: {
      name: signed.session.user.name,
      email: signed.session.user.email,
      orgName: signed.session.orgName,
      role: signed.session.role,
      csrf: signed.csrf,
    },
    ...(active ? { active } : {}),
  });

  app.get("/setup/:token", async (c) => {
    const token = await findUserToken(deps.store, deps.clock, "setup", c.req.param("token"));
    if (!token) return c.html(page("Setup link", {}, expiredLink()), 404);
    return c.html(page("Set up Tessera", {}, setupForm({}, {})));
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
      const errors = Object.fromEntries(
        parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message]),
      );
      return c.html(page("Set up Tessera", {}, setupForm(values, errors)), 422);
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
      return c.html(page("Set up Tessera", {}, setupForm(values, { email: created.message })), 409);
    setSessionCookie(c, deps, created.token);
    return c.redirect("/", 303);
  });

  app.get("/invite/:token", async (c) => {
    const token = await findUserToken(deps.store, deps.clock, "invite", c.req.param("token"));
    if (!token?.email) return c.html(page("Invitation", {}, expiredLink()), 404);
    const existing = await findUserByEmail(deps.store, token.email);
    return c.html(page("Join", {}, inviteForm(token.email, token.role ?? "viewer", Boolean(existing), {})));
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
          const errors = Object.fromEntries(
            parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message]),
          );
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
    return c.html(page("New password", {}, resetForm(token.email, {})));
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
      return c.html(page("New password", {}, resetForm(email.email, { password: email.error! })), 422);
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

  app.get("/sign-in", (c) => c.html(page("Sign in", {}, signInForm("", undefined))));
  app.post("/sign-in", async (c) => {
    const form = await formOf(c);
    const email = String(form.email ?? "")
      .trim()
      .toLowerCase()
      .slice(0, 320);
    const password = String(form.password ?? "");
    const limits = await Promise.all([
      deps.rateLimiter.hit(`sign-in:account:${email}`, SIGN_IN_LIMITS.account),
      deps.rateLimiter.hit(`sign-in:address:${addressOf(c)}`, SIGN_IN_LIMITS.address),
    ]);
    const blocked = limits.find((decision) => !decision.allowed);
    if (blocked) {
      const minutes = Math.max(1, Math.ceil((blocked.resetAt * 1000 - Date.now()) / 60_000));
      c.header("Retry-After", String(minutes * 60));
      return c.html(
        page(
          "Sign in",
          {},
          signInForm(
            email,
            `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
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
      return c.html(page("Sign in", {}, signInForm(email, "Email or password is wrong.")), 401);
    }
    const session = await createSession(deps.store, deps.clock, {
      userId: user.id,
      orgId: memberships[0]!.orgId,
      userAgent: c.req.header("user-agent"),
      address: addressOf(c),
    });
    setSessionCookie(c, deps, session.token);
    return c.redirect("/", 303);
  });
  app.post("/sign-out", async (c) => {
    const result = await posted(c);
    if (result instanceof Response) return result;
    await revokeSession(deps.store, deps.clock, result.signed.session.sessionId);
    clearSessionCookie(c);
    return c.redirect("/sign-in", 303);
  });

  app.get("/", async (c) => {
    const signed = await signedIn(c);
    if (signed instanceof Response) return signed;
    const { session } = signed;
    return c.html(
      page(
        "Overview",
        nav(signed, "/"),
        html`<h1>${session.orgName}</h1>
          <p>
            Signed in as <strong>${session.user.name}</strong> (${session.user.email}), ${session.role} of
            this organization.
          </p>
          <section class="card">
            <h2>Get started</h2>
            <p>
              <a href="/settings/api-keys">Create an API key</a> for your integrations, then call the REST
              API; the reference is at <a href="/docs">/docs</a>.
            </p>
          </section>`,
      ),
    );
  });

  syncPanelRoutes(app, { deps, signedIn, posted, nav });

  app.get("/settings/api-keys", async (c) => {
    const signed = await signedIn(c);
    if (signed instanceof Response) return signed;
    return c.html(page("API Keys", nav(signed, "/settings/api-keys"), await keysPage(deps, signed, {})));
  });
  app.post("/settings/api-keys", async (c) => {
    const result = await posted(c);
    if (result instanceof Response) return result;
    const { signed, form } = result;
    if (!hasScope(signed.session.scopes, "keys", "write")) return forbidden(c, signed);
    const kind = textOf(form, "kind");
    const engines = [form.engines ?? []].flat();
    const input = {
      name: textOf(form, "name").trim() || undefined,
      kind,
      ...(kind === "engine" ? { access: textOf(form, "access") || "read" } : {}),
      ...(kind === "engine" && engines.length > 0 ? { engines } : {}),
    };
    const parsed = ApiKeyCreateSchema.safeParse(input);
    if (!parsed.success) {
      const errors = Object.fromEntries(
        parsed.error.issues.map((issue) => [String(issue.path[0] ?? "kind"), issue.message]),
      );
      return c.html(
        page("API Keys", nav(signed, "/settings/api-keys"), await keysPage(deps, signed, { errors })),
        422,
      );
    }
    const created = await createApiKey(deps.store, signed.session.orgId, parsed.data, {
      createdByUser: signed.session.user.id,
    });
    return c.html(
      page(
        "API Keys",
        nav(signed, "/settings/api-keys"),
        await keysPage(deps, signed, { secret: created.secret, name: created.name }),
      ),
      201,
    );
  });
  app.post("/settings/api-keys/:id/revoke", async (c) => {
    const result = await posted(c);
    if (result instanceof Response) return result;
    const { signed } = result;
    if (!hasScope(signed.session.scopes, "keys", "write")) return forbidden(c, signed);
    const revoked = await revokeApiKey(deps.store, signed.session.orgId, c.req.param("id"), deps.clock);
    deps.keys.invalidate(revoked.id);
    return c.redirect("/settings/api-keys", 303);
  });
  return app;
}

/** A posted form's fields as text (a repeated field as a list; an uploaded file is not expected). */
async function formOf(c: Context<AppEnv>): Promise<Record<string, string | string[]>> {
  const body = await c.req.parseBody({ all: true });
  return Object.fromEntries(
    Object.entries(body).map(([name, value]) => [
      name,
      Array.isArray(value)
        ? value.map((item) => (typeof item === "string" ? item : ""))
        : typeof value === "string"
          ? value
          : "",
    ]),
  );
}

/** One field's text (the first, if repeated). */
const textOf = (form: Record<string, string | string[]>, name: string): string =>
  [form[name] ?? ""].flat()[0] ?? "";

function forbidden(c: Context<AppEnv>, signed: Signed): Response | Promise<Response> {
  return c.html(
    page(
      "Forbidden",
      {
        who: {
          ...signed.session.user,
          orgName: signed.session.orgName,
          role: signed.session.role,
          csrf: signed.csrf,
        },
      },
      html`<h1>Forbidden</h1>
        <p>Your role (${signed.session.role}) cannot do this.</p>`,
    ),
    403,
  );
}

function expiredLink(): Html {
  return html`<h1>This link cannot be used</h1>
    <p>
      It has expired or was used already. An owner can make a new one:
      <code>npm run tessera -- users invite</code> (or <code>users reset-password</code>).
    </p>`;
}

function setupForm(values: Record<string, string>, errors: Record<string, string>): Html {
  return html`<h1>Set up Tessera</h1>
    <p>Become the first owner of this organization: the account you make here manages it in the dashboard.</p>
    <form method="post" class="card" novalidate>
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

function inviteForm(email: string, role: string, existing: boolean, errors: Record<string, string>): Html {
  return html`<h1>Join as ${role}</h1>
    <p>This invitation is for <strong>${email}</strong>.</p>
    <form method="post" class="card" novalidate>
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

function resetForm(email: string, errors: Record<string, string>): Html {
  return html`<h1>New password</h1>
    <form method="post" class="card" novalidate>
      <p>For <strong>${email}</strong>. Every session of this account ends when it changes.</p>
      <label for="password">New password (at least 10 characters)</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required />
      ${fieldError(errors, "password")}
      <button type="submit">Set the password</button>
    </form>`;
}

function signInForm(email: string, error: string | undefined): Html {
  return html`<h1>Sign in</h1>
    <form method="post" action="/sign-in" class="card">
      ${error ? html`<p class="error" role="alert">${error}</p>` : ""}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>`;
}

async function keysPage(
  deps: ApiDeps,
  signed: Signed,
  state: { secret?: string; name?: string; errors?: Record<string, string> },
): Promise<Html> {
  const keys = await listApiKeys(deps.store, signed.session.orgId, 1, 100);
  const canWrite = hasScope(signed.session.scopes, "keys", "write");
  const errors = state.errors ?? {};
  return html`<h1>API Keys</h1>
    ${
      state.secret
        ? html`<section class="notice" aria-live="polite">
            <p>
              <strong>${state.name || "The new key"}</strong> is ready. Copy its secret now: it is shown only
              once.
            </p>
            <p class="secret" id="new-secret">${state.secret}</p>
          </section>`
        : ""
    }
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Kind</th>
          <th>Scopes</th>
          <th>Last used</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${keys.data.map(
          (key) =>
            html`<tr>
              <td>
                ${key.name || html`<span class="muted">(unnamed)</span>`}
                <code>${key.redacted_secret}</code>
              </td>
              <td>${key.kind}</td>
              <td>${key.scopes.join(" ")}</td>
              <td>${key.last_used_at ?? html`<span class="muted">never</span>`}</td>
              <td>
                ${
                  key.revoked_at
                    ? html`<span class="muted">revoked</span>`
                    : canWrite
                      ? html`<form method="post" action="/settings/api-keys/${key.id}/revoke">
                          <input type="hidden" name="_csrf" value="${signed.csrf}" />
                          <button class="danger" type="submit" aria-label="Revoke ${key.name || key.id}">
                            Revoke
                          </button>
                        </form>`
                      : ""
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      canWrite
        ? html`<form method="post" action="/settings/api-keys" class="card">
            <h2>Create a key</h2>
            <input type="hidden" name="_csrf" value="${signed.csrf}" />
            <label for="key-name">Name</label>
            <input id="key-name" name="name" type="text" maxlength="100" />
            <label for="key-kind">Access</label>
            <select id="key-kind" name="kind">
              <option value="full_access">Full access</option>
              <option value="read_only">Read-only</option>
              <option value="engine">Engine-specific</option>
            </select>
            ${fieldError(errors, "kind")}
            <fieldset>
              <legend>Engines (engine-specific keys)</legend>
              ${ENGINES.map((engine) => html`<label><input type="checkbox" name="engines" value="${engine}" /> ${engine}</label>`)}
            </fieldset>
            ${fieldError(errors, "engines")}
            <label for="key-access">Engine access</label>
            <select id="key-access" name="access">
              <option value="read">Read</option>
              <option value="write">Read and write</option>
            </select>
            <button type="submit">Create key</button>
          </form>`
        : html`<p class="muted">
            Your role (${signed.session.role}) can see keys but not create or revoke them.
          </p>`
    }`;
}
