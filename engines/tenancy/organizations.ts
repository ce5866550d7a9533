import { z } from "zod";
import { AppError, newId, PLANS, type Plan } from "../../core/index.ts";
import type { Queryable } from "../../store/index.ts";
import { baseFields } from "../resource.ts";

export const OrganizationSchema = z
  .object({
    id: z.string(),
    object: z.literal("organization"),
    name: z.string(),
    plan: z.enum(PLANS),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Organization" });
export type Organization = z.infer<typeof OrganizationSchema>;

export const OrganizationCreateSchema = z
  .object({
    name: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,62}$/, "must be 1-63 letters, digits, space . _ -"),
    plan: z.enum(PLANS).default("free"),
  })
  .strict();
export type OrganizationCreate = z.input<typeof OrganizationCreateSchema>;

/** An `organizations` row as the store returns it (migration 0001). */
interface OrganizationRow {
  id: string;
  name: string;
  plan: Plan;
  /** int8: the last invoice number given (engines/finance/numbering.ts) */
  invoice_seq: number;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

function render(row: OrganizationRow): Organization {
  return { ...baseFields(row, "organization"), object: "organization", name: row.name, plan: row.plan };
}

export async function createOrganization(db: Queryable, input: OrganizationCreate): Promise<Organization> {
  const { name, plan } = OrganizationCreateSchema.parse(input);
  const existing = await db.query("SELECT 1 FROM organizations WHERE name = $1", [name]);
  if (existing.length > 0) throw new AppError("conflict", `An organization named '${name}' exists`);
  const rows = await db.query<OrganizationRow>(
    "INSERT INTO organizations (id, name, plan) VALUES ($1, $2, $3) RETURNING *",
    [newId("org"), name, plan],
  );
  return render(rows[0]!);
}

/** By id (`org_…`) or by name, as the CLI's `--org` accepts either. */
export async function findOrganization(db: Queryable, idOrName: string): Promise<Organization | undefined> {
  const rows = await db.query<OrganizationRow>("SELECT * FROM organizations WHERE id = $1 OR name = $1", [
    idOrName,
  ]);
  return rows[0] ? render(rows[0]) : undefined;
}

export async function getOrganization(db: Queryable, id: string): Promise<Organization> {
  const rows = await db.query<OrganizationRow>("SELECT * FROM organizations WHERE id = $1", [id]);
  if (!rows[0]) throw new AppError("not_found", `No such organization: '${id}'`);
  return render(rows[0]);
}

export async function listOrganizations(db: Queryable): Promise<Organization[]> {
  const rows = await db.query<OrganizationRow>("SELECT * FROM organizations ORDER BY created_at, id");
  return rows.map(render);
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>("SELECT count(*) AS n FROM organizations");
  return rows[0]?.n ?? 0;
}

export const OrganizationRenameSchema = OrganizationCreateSchema.pick({ name: true });

/** Renames the organization (Settings → Organization); names are unique, as at creation. */
export async function renameOrganization(db: Queryable, id: string, name: string): Promise<Organization> {
  const checked = OrganizationRenameSchema.parse({ name }).name;
  const taken = await db.query("SELECT 1 FROM organizations WHERE name = $1 AND id <> $2", [checked, id]);
  if (taken.length > 0) {
    throw new AppError("conflict", `An organization named '${checked}' exists`, {
      errors: [{ param: "name", code: "conflict", message: `An organization named '${checked}' exists` }],
    });
  }
  const rows = await db.query<OrganizationRow>(
    "UPDATE organizations SET name = $2, updated_at = now() WHERE id = $1 RETURNING *",
    [id, checked],
  );
  if (!rows[0]) throw new AppError("not_found", `No such organization: '${id}'`);
  return render(rows[0]);
}
