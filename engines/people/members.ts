import { z } from "zod";
import { AppError, type Clock } from "../../core/index.ts";
import type { Queryable } from "../../store/index.ts";
import { actorOf, type Actor } from "../events/actor.ts";
import type { EventType } from "../events/catalog.ts";
import { recordEvents } from "../events/outbox.ts";
import { requireGrant, type Grantor } from "../tenancy/grants.ts";
import { ROLES, type Role } from "./roles.ts";

/**
 * A person's place in an organization, as events and the Members page show it. `invited` is an
 * invitation link not yet accepted (no user yet, so `user` is null); `removed` is the last state a
 * `member.removed` event carries. The password hash and any link token are never part of it.
 */
export const MemberSchema = z.object({
  id: z.string().describe("The membership (`mem_…`), or the invitation (`utok_…`) while invited"),
  object: z.literal("member"),
  user: z.string().nullable().describe("The user's id (`usr_…`); null while invited"),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(ROLES),
  status: z.enum(["invited", "active", "removed"]),
  created_at: z.string(),
});
export type Member = z.infer<typeof MemberSchema>;

/** Platform events about people; webhooks and triggers get them like any other. */
export const MEMBER_EVENT_TYPES: EventType[] = [
  { type: "member.invited", description: "Someone was invited to the organization.", object: MemberSchema },
  {
    type: "member.joined",
    description: "A person joined the organization (set it up, or accepted an invitation).",
    object: MemberSchema,
  },
  { type: "member.role_changed", description: "A member's role changed.", object: MemberSchema },
  {
    type: "member.removed",
    description: "A member was removed from the organization.",
    object: MemberSchema,
  },
];

/** A membership joined with its user (`SELECT_MEMBERS`). */
interface MemberRow {
  id: string;
  user_id: string;
  role: Role;
  created_at: Date;
  email: string;
  name: string;
}

const renderMember = (row: MemberRow, status: Member["status"] = "active"): Member => ({
  id: row.id,
  object: "member",
  user: row.user_id,
  email: row.email,
  name: row.name,
  role: row.role,
  status,
  created_at: row.created_at.toISOString(),
});

const SELECT_MEMBERS = `SELECT m.id, m.user_id, m.role, m.created_at, u.email, u.name
  FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1`;

/** The organization's members, oldest first. */
export async function listMembers(db: Queryable, orgId: string): Promise<Member[]> {
  const rows = await db.query<MemberRow>(`${SELECT_MEMBERS} ORDER BY m.created_at, m.id`, [orgId]);
  return rows.map((row) => renderMember(row));
}

/**
 * `member.joined` for a membership just written in `tx` (createMember, addMembership). Its actor is
 * the person who joined: they set the account up, or accepted the invitation, themselves.
 */
export async function recordJoined(
  tx: Queryable,
  clock: Clock,
  orgId: string,
  userId: string,
): Promise<void> {
  const [row] = await tx.query<MemberRow>(`${SELECT_MEMBERS} AND m.user_id = $2`, [orgId, userId]);
  if (!row) return;
  const actor: Actor = { type: "user", id: userId };
  await recordEvents(tx, orgId, clock.now(), [{ type: "member.joined", object: renderMember(row), actor }]);
}

/** `member.invited` by `actor`, for the invitation link `tokenId` just written in `tx`. */
export async function recordInvited(
  tx: Queryable,
  clock: Clock,
  orgId: string,
  invitation: { tokenId: string; email: string; role: Role },
  actor: Actor,
): Promise<void> {
  const now = clock.now();
  const member: Member = {
    id: invitation.tokenId,
    object: "member",
    user: null,
    email: invitation.email,
    name: null,
    role: invitation.role,
    status: "invited",
    created_at: now.toISOString(),
  };
  await recordEvents(tx, orgId, now, [{ type: "member.invited", object: member, actor }]);
}

/**
 * Sets a member's role, or removes the member (`role` undefined), with its event. The last owner can
 * neither leave nor be demoted: the organization would have none. The member's sessions in this
 * organization end, since they act with the old role. `grantor` must be able to grant both the
 * member's role and the new one (`requireGrant`): nobody changes a member above their own role. It is
 * the event's actor.
 */
export async function changeMembership(
  tx: Queryable,
  clock: Clock,
  orgId: string,
  userId: string,
  role: Role | undefined,
  grantor: Grantor,
): Promise<void> {
  if (role) requireGrant(grantor, { type: "role", role });
  const rows = await tx.query<MemberRow>(`${SELECT_MEMBERS} ORDER BY m.id FOR UPDATE OF m`, [orgId]);
  const row = rows.find((candidate) => candidate.user_id === userId);
  if (!row) throw new AppError("not_found", "No such member");
  requireGrant(grantor, { type: "role", role: row.role });
  const owners = rows.filter((candidate) => candidate.role === "owner").length;
  if (row.role === "owner" && role !== "owner" && owners === 1) {
    throw new AppError("conflict", "The organization's last owner cannot leave or change role");
  }
  const now = clock.now();
  if (role === row.role) return;
  if (role) {
    await tx.query("UPDATE memberships SET role = $3, updated_at = $4 WHERE org_id = $1 AND user_id = $2", [
      orgId,
      userId,
      role,
      now.toISOString(),
    ]);
  } else {
    await tx.query("DELETE FROM memberships WHERE org_id = $1 AND user_id = $2", [orgId, userId]);
  }
  await tx.query(
    "UPDATE user_sessions SET revoked_at = $3 WHERE user_id = $1 AND org_id = $2 AND revoked_at IS NULL",
    [userId, orgId, now.toISOString()],
  );
  const member = role ? { ...renderMember(row), role } : renderMember(row, "removed");
  const actor = actorOf(grantor);
  await recordEvents(tx, orgId, now, [
    role
      ? { type: "member.role_changed", object: member, previousAttributes: { role: row.role }, actor }
      : { type: "member.removed", object: member, actor },
  ]);
}
