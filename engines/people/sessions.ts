import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { newId, rfc3339, type Clock, type Plan } from "../../core/index.ts";
import { inTransaction, type Queryable, type Store } from "../../store/index.ts";
import type { Actor } from "../events/actor.ts";
import type { EventType } from "../events/catalog.ts";
import { recordEvents } from "../events/outbox.ts";
import { roleScopes, type Role } from "./roles.ts";
import { hashToken, type User } from "./users.ts";

/** A session ends after this long without use, and after ABSOLUTE_MS whatever happens. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 14 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often (each write is a round trip). */
const TOUCH_EVERY_MS = 60_000;

/** A signed-in user acting in one organization with its role's scopes. */
export interface SessionPrincipal {
  sessionId: string;
  user: User;
  orgId: string;
  orgName: string;
  plan: Plan;
  role: Role;
  scopes: string[];
  csrfHash: string;
}

export interface NewSession {
  /** The cookie's value: shown once, only its hash is kept. */
  token: string;
  /** What every state-changing request sends back (header or form field). */
  csrf: string;
  sessionId: string;
}

/**
 * The CSRF token of a session: derived from its cookie's token, so a page can embed it without the
 * server keeping it in clear, and a site that cannot read the cookie cannot make it.
 */
export function csrfFor(token: string): string {
  return createHash("sha256").update(`csrf:${token}`).digest("base64url");
}

/** A new session for `userId` in `orgId` (sign-in rotates: a new token every time). */
export async function createSession(
  db: Queryable | Store,
  clock: Clock,
  input: { userId: string; orgId: string; userAgent?: string; address?: string },
): Promise<NewSession> {
  const token = randomBytes(32).toString("base64url");
  const csrf = csrfFor(token);
  const now = clock.now();
  const sessionId = newId("ses");
  await db.query(
    `INSERT INTO user_sessions (id, user_id, org_id, token_hash, csrf_hash, user_agent, address, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)`,
    [
      sessionId,
      input.userId,
      input.orgId,
      hashToken(token),
      hashToken(csrf),
      (input.userAgent ?? "").slice(0, 300),
      (input.address ?? "").slice(0, 100),
      now.toISOString(),
      new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString(),
    ],
  );
  return { token, csrf, sessionId };
}

/** A live session joined with its user, the user's role in its organization, and that organization. */
interface SessionRow {
  id: string;
  org_id: string;
  csrf_hash: string;
  last_seen_at: Date;
  user_id: string;
  email: string;
  name: string;
  role: Role;
  org_name: string;
  plan: Plan;
}

/** A session as Settings → Sessions lists it. */
interface SessionListRow {
  id: string;
  user_agent: string;
  address: string;
  created_at: Date;
  last_seen_at: Date;
}

/** The live session a cookie names, with its user, organization and role; undefined otherwise. */
export async function resolveSession(
  db: Queryable,
  clock: Clock,
  token: string,
): Promise<SessionPrincipal | undefined> {
  const now = clock.now();
  const [row] = await db.query<SessionRow>(
    `SELECT s.id, s.org_id, s.csrf_hash, s.last_seen_at, u.id AS user_id, u.email, u.name, m.role, o.name AS org_name, o.plan
     FROM user_sessions s
     JOIN users u ON u.id = s.user_id
     JOIN memberships m ON m.user_id = s.user_id AND m.org_id = s.org_id
     JOIN organizations o ON o.id = s.org_id
     WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND s.last_seen_at > $3`,
    [hashToken(token), now.toISOString(), new Date(now.getTime() - SESSION_IDLE_MS).toISOString()],
  );
  if (!row) return undefined;
  if (now.getTime() - row.last_seen_at.getTime() > TOUCH_EVERY_MS) {
    await db.query(`UPDATE user_sessions SET last_seen_at = $2 WHERE id = $1`, [row.id, now.toISOString()]);
  }
  return {
    sessionId: row.id,
    user: { id: row.user_id, email: row.email, name: row.name },
    orgId: row.org_id,
    orgName: row.org_name,
    plan: row.plan,
    role: row.role,
    scopes: roleScopes(row.role),
    csrfHash: row.csrf_hash,
  };
}

/** Whether `csrf` is this session's CSRF token (constant-time on the hashes). */
export function csrfMatches(session: SessionPrincipal, csrf: string | undefined): boolean {
  if (!csrf) return false;
  const given = Buffer.from(hashToken(csrf), "hex");
  const expected = Buffer.from(session.csrfHash, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A session as `session.revoked` carries it: where and when it signed in, never its token. */
export const SessionSchema = z
  .object({
    id: z.string().meta({ example: "ses_3kTqZ9" }),
    object: z.literal("session"),
    user: z.string().describe("The signed-in user (`usr_…`)"),
    user_agent: z.string(),
    address: z.string().describe("The client's address when it signed in"),
    created_at: z.string(),
    last_seen_at: z.string(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: "Session" });
export type Session = z.infer<typeof SessionSchema>;

/** `session.*` events: a session signed out from Settings → Sessions. */
export const SESSION_EVENT_TYPES: EventType[] = [
  {
    type: "session.revoked",
    description:
      "A dashboard session was signed out from Settings → Sessions (one, or every one of the user's).",
    object: SessionSchema,
  },
];

/** A `user_sessions` row as `endUserSessions` returns it (migration 0016). */
interface RevokedSessionRow {
  id: string;
  org_id: string;
  user_id: string;
  user_agent: string;
  address: string;
  created_at: Date;
  last_seen_at: Date;
  revoked_at: Date;
}

/**
 * Signs out the user's sessions from Settings → Sessions: the one `only` names, or every one still
 * open, each recorded as `session.revoked` by `actor` in the session's organization, in one
 * transaction. Returns the ids it revoked (none: the user has no such open session). Signing out of
 * the page's header and a password reset end sessions without events (`revokeSession`,
 * `revokeUserSessions`): they are not an administrator's action.
 */
export async function endUserSessions(
  db: Queryable | Store,
  clock: Clock,
  userId: string,
  actor: Actor,
  only?: string,
): Promise<string[]> {
  const now = clock.now();
  return inTransaction(db, async (tx) => {
    const rows = await tx.query<RevokedSessionRow>(
      `UPDATE user_sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL
         AND ($3::text IS NULL OR id = $3) RETURNING *`,
      [userId, now.toISOString(), only ?? null],
    );
    for (const row of rows) {
      await recordEvents(tx, row.org_id, now, [
        { type: "session.revoked", object: renderSession(row), actor },
      ]);
    }
    return rows.map((row) => row.id);
  });
}

const renderSession = (row: RevokedSessionRow): Session => ({
  id: row.id,
  object: "session",
  user: row.user_id,
  user_agent: row.user_agent,
  address: row.address,
  created_at: rfc3339(row.created_at),
  last_seen_at: rfc3339(row.last_seen_at),
  revoked_at: rfc3339(row.revoked_at),
});

export async function revokeSession(db: Queryable, clock: Clock, sessionId: string): Promise<void> {
  await db.query(`UPDATE user_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, [
    sessionId,
    clock.now().toISOString(),
  ]);
}

/** Sign out everywhere: every live session of the user. */
export async function revokeUserSessions(db: Queryable, clock: Clock, userId: string): Promise<number> {
  const rows = await db.query(
    `UPDATE user_sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`,
    [userId, clock.now().toISOString()],
  );
  return rows.length;
}

export interface SessionInfo {
  id: string;
  userAgent: string;
  address: string;
  createdAt: Date;
  lastSeenAt: Date;
}

/** The user's live sessions, newest first (Settings → Sessions). */
export async function listUserSessions(db: Queryable, clock: Clock, userId: string): Promise<SessionInfo[]> {
  const now = clock.now();
  const rows = await db.query<SessionListRow>(
    `SELECT id, user_agent, address, created_at, last_seen_at FROM user_sessions
     WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND last_seen_at > $3 ORDER BY created_at DESC`,
    [userId, now.toISOString(), new Date(now.getTime() - SESSION_IDLE_MS).toISOString()],
  );
  return rows.map((row) => ({
    id: row.id,
    userAgent: row.user_agent,
    address: row.address,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
  }));
}
