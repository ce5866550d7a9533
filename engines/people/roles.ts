/** A member's role in an organization, and the scopes it acts with (ARCHITECTURE.md, "People"). */
export const ROLES = ["owner", "admin", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/**
 * viewer: every engine's reads; developer: reads, plus functions, webhooks and keys; admin and
 * owner: everything. Only owners manage members and delete the organization (checked where that
 * happens, not by a scope).
 */
export function roleScopes(role: Role): string[] {
  switch (role) {
    case "owner":
    case "admin":
      return ["*"];
    case "developer":
      return ["*:read", "functions:write", "webhooks:write", "keys:write"];
    case "viewer":
      return ["*:read"];
  }
}

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);
