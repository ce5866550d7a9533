import { z } from "zod";
import { AppError, newId, type Clock } from "../../core/index.ts";
import { inTransaction, type Queryable, type Store } from "../../store/index.ts";
import { actorOf } from "../events/actor.ts";
import { EmailSchema } from "../fields.ts";
import { requireGrant, type Grantor } from "../tenancy/grants.ts";
import { hashPassword } from "./passwords.ts";
import { ROLES, type Role } from "./roles.ts";
import { revokeUserSessions } from "./sessions.ts";
import { recordInvited, recordJoined } from "./members.ts";
import { createUserToken, findUserByEmail, issueUserToken, PasswordSchema } from "./users.ts";

/** Invitation and reset links stay valid this long (no mail server is assumed: the operator passes them on). */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const RESET_TTL_MS = 60 * 60 * 1000;

export const InvitationSchema = z.object({ email: EmailSchema, role: z.enum(ROLES) }).strict();
export type Invitation = z.infer<typeof InvitationSchema>;

/**
 * A one-time link's token for `email` to join `orgId` as `role` (`users invite`). The role is
 * `grantor`'s to give (`requireGrant`): an owner in the dashboard, the operator on the CLI; it is
 * `member.invited`'s actor.
 */
export async function inviteMember(
  db: Queryable | Store,
  clock: Clock,
  orgId: string,
  input: Invitation,
  grantor: Grantor,
): Promise<string> {
  requireGrant(grantor, { type: "role", role: input.role });
  return inTransaction(db, async (tx) => {
    const [member] = await tx.query(
      `SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND lower(u.email) = lower($2)`,
      [orgId, input.email],
    );
    if (member) throw new AppError("conflict", `${input.email} is already a member`);
    const issued = await issueUserToken(tx, clock, {
      purpose: "invite",
      orgId,
      email: input.email,
      role: input.role,
      ttlMs: INVITE_TTL_MS,
    });
    const invitation = { tokenId: issued.id, email: input.email, role: input.role };
    await recordInvited(tx, clock, orgId, invitation, actorOf(grantor));
    return issued.token;
  });
}

/** A one-time link's token to set a new password (`users reset-password`); a 404 for no such user. */
export async function passwordResetToken(
  db: Queryable | Store,
  clock: Clock,
  email: string,
): Promise<string> {
  const user = await findUserByEmail(db, email);
  if (!user) throw new AppError("not_found", `No user with the email '${email}'`);
  return createUserToken(db, clock, { purpose: "reset", email: user.email, ttlMs: RESET_TTL_MS });
}

/** Sets a user's password and ends every session of theirs (a reset is often a response to a leak). */
export async function setPassword(
  tx: Queryable,
  clock: Clock,
  email: string,
  password: string,
): Promise<string> {
  const checked = PasswordSchema.parse(password);
  const user = await findUserByEmail(tx, email);
  if (!user) throw new AppError("not_found", "No such user");
  await tx.query(`UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1`, [
    user.id,
    await hashPassword(checked),
    clock.now().toISOString(),
  ]);
  await revokeUserSessions(tx, clock, user.id);
  return user.id;
}

/** Adds an existing user to an organization (an invitation accepted by someone who has an account). */
export async function addMembership(
  tx: Queryable,
  clock: Clock,
  userId: string,
  orgId: string,
  role: Role,
): Promise<void> {
  const now = clock.now().toISOString();
  const added = await tx.query(
    `INSERT INTO memberships (id, org_id, user_id, role, created_at, updated_at)
     VALUES ($5, $1, $2, $3, $4, $4) ON CONFLICT (org_id, user_id) DO NOTHING RETURNING id`,
    [orgId, userId, role, now, newId("mem")],
  );
  if (added.length > 0) await recordJoined(tx, clock, orgId, userId);
}
