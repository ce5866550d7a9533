import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { AppError, newId, type Clock } from "../../core/index.ts";
import type { Queryable, Store } from "../../store/index.ts";
import { EmailSchema } from "../fields.ts";
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts";
import { recordJoined } from "./members.ts";
import type { Role } from "./roles.ts";

export const PasswordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`);

export const NewUserSchema = z
  .object({
    email: EmailSchema,
    name: z.string().trim().min(1, "must not be empty").max(200),
    password: PasswordSchema,
  })
  .strict();
export type NewUser = z.infer<typeof NewUserSchema>;

export interface User {
  id: string;
  email: string;
  name: string;
}

export interface UserRow extends User {
  password_hash: string;
}

/** A `users` row as the store returns it (migration 0016). */
interface UsersTableRow extends UserRow {
  created_at: Date;
  updated_at: Date;
}

/** The user with this email (any case), with the password hash, or undefined. */
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UsersTableRow>(`SELECT * FROM users WHERE lower(email) = lower($1)`, [
    email.trim(),
  ]);
  return row ? { id: row.id, email: row.email, name: row.name, password_hash: row.password_hash } : undefined;
}

/** A new user and its first membership, in the caller's transaction. */
export async function createMember(
  tx: Queryable,
  clock: Clock,
  input: NewUser & { orgId: string; role: Role },
): Promise<User> {
  if (await findUserByEmail(tx, input.email)) {
    throw new AppError("conflict", "An account with this email exists: sign in instead");
  }
  const now = clock.now().toISOString();
  const id = newId("usr");
  await tx.query(
    `INSERT INTO users (id, email, name, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`,
    [id, input.email.trim(), input.name, await hashPassword(input.password), now],
  );
  await tx.query(
    `INSERT INTO memberships (id, org_id, user_id, role, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`,
    [newId("mem"), input.orgId, id, input.role, now],
  );
  await recordJoined(tx, clock, input.orgId, id);
  return { id, email: input.email.trim(), name: input.name };
}

/** The organizations a user belongs to, with the role in each, oldest membership first. */
export async function membershipsOf(
  db: Queryable,
  userId: string,
): Promise<Array<{ orgId: string; orgName: string; role: Role }>> {
  const rows = await db.query<{ org_id: string; name: string; role: Role }>(
    `SELECT m.org_id, o.name, m.role FROM memberships m JOIN organizations o ON o.id = m.org_id
     WHERE m.user_id = $1 ORDER BY m.created_at`,
    [userId],
  );
  return rows.map((row) => ({ orgId: row.org_id, orgName: row.name, role: row.role }));
}

export const USER_TOKEN_PURPOSES = ["setup", "invite", "reset"] as const;
export type UserTokenPurpose = (typeof USER_TOKEN_PURPOSES)[number];

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export interface UserTokenInput {
  purpose: UserTokenPurpose;
  orgId?: string;
  email?: string;
  role?: Role;
  ttlMs: number;
}

/** A one-time link's token (shown once; only its hash is kept), valid for `ttlMs`. */
export async function createUserToken(
  db: Queryable | Store,
  clock: Clock,
  input: UserTokenInput,
): Promise<string> {
  return (await issueUserToken(db, clock, input)).token;
}

/** `createUserToken`, with the row's id (`utok_…`) for an event that names the link without its secret. */
export async function issueUserToken(
  db: Queryable | Store,
  clock: Clock,
  input: UserTokenInput,
): Promise<{ id: string; token: string }> {
  const token = randomBytes(24).toString("base64url");
  const id = newId("utok");
  const now = clock.now();
  await db.query(
    `INSERT INTO user_tokens (id, purpose, token_hash, org_id, email, role, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      id,
      input.purpose,
      hashToken(token),
      input.orgId ?? null,
      input.email ?? null,
      input.role ?? null,
      new Date(now.getTime() + input.ttlMs).toISOString(),
      now.toISOString(),
    ],
  );
  return { id, token };
}

export interface UserToken {
  id: string;
  orgId: string | null;
  email: string | null;
  role: Role | null;
}

/** A `user_tokens` row as the store returns it (migration 0016). */
interface UserTokenRow {
  id: string;
  purpose: UserTokenPurpose;
  token_hash: string;
  org_id: string | null;
  email: string | null;
  /** text, written only from a `Role` (`issueUserToken`) */
  role: Role | null;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

/** The unused, unexpired token of this purpose, or undefined (an unknown, used or stale link look alike). */
export async function findUserToken(
  db: Queryable,
  clock: Clock,
  purpose: UserTokenPurpose,
  token: string,
  lock = false,
): Promise<UserToken | undefined> {
  const [row] = await db.query<UserTokenRow>(
    `SELECT * FROM user_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3${lock ? " FOR UPDATE" : ""}`,
    [hashToken(token), purpose, clock.now().toISOString()],
  );
  if (!row) return undefined;
  return { id: row.id, orgId: row.org_id ?? null, email: row.email ?? null, role: row.role ?? null };
}

export async function useUserToken(db: Queryable, clock: Clock, id: string): Promise<void> {
  await db.query(`UPDATE user_tokens SET used_at = $2 WHERE id = $1`, [id, clock.now().toISOString()]);
}
