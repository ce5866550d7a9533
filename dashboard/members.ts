import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../core/index.ts";
import {
  changeMembership,
  endUserSessions,
  GrantRefused,
  InvitationSchema,
  isRole,
  listMembers,
  inviteMember,
  listUserSessions,
  ROLES,
} from "../engines/index.ts";
import type { AppEnv } from "../api/env.ts";
import { csrfField, fieldError, type Html, page, postButton, settingsTabs } from "./layout.ts";
import { requiresRole } from "./gates.ts";
import { textOf, type DashboardParts, type Signed, errorsByField } from "./parts.ts";
import { clearSessionCookie, principalOfSession, sessionActor } from "./session.ts";

/**
 * Settings → Members (the organization's people and their roles; an owner invites, changes roles and
 * removes: the services check each against the "may grant" rule too) and Settings → Sessions (where this account is signed in; sign out one, or everywhere).
 */
export function memberRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, signedIn, posted, nav } = parts;
  const membersPage = async (signed: Signed, state: { link?: string; errors?: Record<string, string> }) =>
    page("Members", nav(signed, "/settings/members"), await members(parts, signed, state));

  app.get("/settings/members", signedIn, (c) => c.html(membersPage(c.var.signed, {})));
  app.post("/settings/members/invite", posted, requiresRole("owner"), async (c) => {
    const { signed, form } = c.var;
    const parsed = InvitationSchema.safeParse({ email: textOf(form, "email"), role: textOf(form, "role") });
    if (!parsed.success) {
      const errors = errorsByField(parsed.error);
      return c.html(membersPage(signed, { errors }), 422);
    }
    const grantor = principalOfSession(signed.session);
    const token = await inviteMember(
      deps.store,
      deps.clock,
      signed.session.orgId,
      parsed.data,
      grantor,
    ).catch((error: unknown) => {
      if (error instanceof GrantRefused || (error instanceof AppError && error.code === "conflict"))
        return error;
      throw error;
    });
    if (token instanceof GrantRefused)
      return c.html(membersPage(signed, { errors: { role: token.message } }), 403);
    if (token instanceof AppError)
      return c.html(membersPage(signed, { errors: { email: token.message } }), 409);
    const origin = deps.config.publicUrl ?? new URL(c.req.url).origin;
    return c.html(membersPage(signed, { link: `${origin}/invite/${token}` }), 201);
  });
  app.post("/settings/members/:user/role", posted, requiresRole("owner"), async (c) => {
    const { signed, form } = c.var;
    const role = textOf(form, "role");
    if (!isRole(role)) throw new AppError("validation_failed", "Unknown role");
    const grantor = principalOfSession(signed.session);
    await deps.store.transaction((tx) =>
      changeMembership(tx, deps.clock, signed.session.orgId, c.req.param("user"), role, grantor),
    );
    return c.redirect("/settings/members", 303);
  });
  app.post("/settings/members/:user/remove", posted, requiresRole("owner"), async (c) => {
    const { signed } = c.var;
    const grantor = principalOfSession(signed.session);
    await deps.store.transaction((tx) =>
      changeMembership(tx, deps.clock, signed.session.orgId, c.req.param("user"), undefined, grantor),
    );
    return c.redirect("/settings/members", 303);
  });

  app.get("/settings/sessions", signedIn, async (c) => {
    const { signed } = c.var;
    const sessions = await listUserSessions(deps.store, deps.clock, signed.session.user.id);
    return c.html(
      page(
        "Sessions",
        nav(signed, "/settings/sessions"),
        html`${settingsTabs("/settings/sessions")}
          <h1>Sessions</h1>
          <p>Where ${signed.session.user.email} is signed in.</p>
          <table>
            <thead>
              <tr>
                <th>Browser</th>
                <th>Address</th>
                <th>Signed in</th>
                <th>Last seen</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${sessions.map(
                (session) =>
                  html`<tr>
                    <td>
                      ${session.userAgent || "unknown"}${session.id === signed.session.sessionId ? html` <strong>(this one)</strong>` : ""}
                    </td>
                    <td>${session.address}</td>
                    <td>${session.createdAt.toISOString()}</td>
                    <td>${session.lastSeenAt.toISOString()}</td>
                    <td>
                      ${postButton(signed, `/settings/sessions/${session.id}/end`, "Sign out", {
                        buttonClass: "danger",
                      })}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
          ${postButton(signed, "/settings/sessions/end-all", "Sign out everywhere", { buttonClass: "danger" })}`,
      ),
    );
  });
  app.post("/settings/sessions/:id/end", posted, async (c) => {
    const { signed } = c.var;
    const mine = await listUserSessions(deps.store, deps.clock, signed.session.user.id);
    const id = c.req.param("id");
    // Only a session of this account; another's is "not found" like any other id.
    if (!mine.some((session) => session.id === id)) throw new AppError("not_found", "No such session");
    // `session.revoked`, by this user: ending a session here is an action the audit log keeps.
    await endUserSessions(deps.store, deps.clock, signed.session.user.id, sessionActor(signed.session), id);
    if (id === signed.session.sessionId) {
      clearSessionCookie(c);
      return c.redirect("/sign-in", 303);
    }
    return c.redirect("/settings/sessions", 303);
  });
  app.post("/settings/sessions/end-all", posted, async (c) => {
    const { session } = c.var.signed;
    await endUserSessions(deps.store, deps.clock, session.user.id, sessionActor(session));
    clearSessionCookie(c);
    return c.redirect("/sign-in", 303);
  });
}

async function members(
  parts: DashboardParts,
  signed: Signed,
  state: { link?: string; errors?: Record<string, string> },
): Promise<Html> {
  const rows = await listMembers(parts.deps.store, signed.session.orgId);
  const owner = signed.session.role === "owner";
  const errors = state.errors ?? {};
  return html`${settingsTabs("/settings/members")}
    <h1>Members</h1>
    ${
      state.link
        ? html`<section class="notice" aria-live="polite">
            <p>Send this one-time invitation link (valid 7 days) to the person you invited:</p>
            <p class="secret" id="invite-link">${state.link}</p>
          </section>`
        : ""
    }
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Email</th>
          <th>Role</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            html`<tr>
              <td>${row.name}</td>
              <td>${row.email}</td>
              <td>
                ${
                  owner
                    ? html`<form method="post" action="/settings/members/${row.user}/role" class="inline">
                        ${csrfField(signed)}
                        <select name="role" aria-label="Role of ${row.name}">
                          ${ROLES.map((role) => html`<option value="${role}" ${role === row.role ? "selected" : ""}>${role}</option>`)}
                        </select>
                        <button type="submit">Change</button>
                      </form>`
                    : row.role
                }
              </td>
              <td>
                ${
                  owner
                    ? postButton(signed, `/settings/members/${row.user}/remove`, "Remove", {
                        buttonClass: "danger",
                        ariaLabel: `Remove ${row.name}`,
                      })
                    : ""
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      owner
        ? html`<form method="post" action="/settings/members/invite" class="card">
            <h2>Invite someone</h2>
            ${csrfField(signed)}
            <label for="invite-email">Email</label>
            <input id="invite-email" name="email" type="email" required />
            ${fieldError(errors, "email")}
            <label for="invite-role">Role</label>
            <select id="invite-role" name="role">
              ${ROLES.map((role) => html`<option value="${role}" ${role === "viewer" ? "selected" : ""}>${role}</option>`)}
            </select>
            ${fieldError(errors, "role")}
            <button type="submit">Create an invitation link</button>
          </form>`
        : html`<p class="muted">Only owners manage members.</p>`
    }`;
}
