import { AppError, type FieldError } from "../../core/index.ts";
import { isRole, ROLES, roleScopes, type Role } from "../people/roles.ts";
import type { KeyPrincipal } from "./principal.ts";
import { hasScope, SCOPE_NAMES, type Access, type ScopeName } from "./scopes.ts";

/**
 * "May grant": the one rule every grant passes (ARCHITECTURE.md, "Security model": no credential wider
 * than its creator). An API key, an OAuth app, a consent to an app, an invitation and a role change
 * are each checked here, inside the service that makes them, against what the acting credential
 * itself holds.
 */

/** The operator: the data dir's admin token (`/admin/v1`, the CLI), the first start. Grants anything. */
export const OPERATOR = Object.freeze({ type: "operator" as const });
export type Operator = typeof OPERATOR;

/** A member acting with a role, where no session stands for it (a consent, for the organization picked). */
export interface MemberGrantor {
  type: "member";
  role: Role;
  /** The member's user (`usr_…`): the actor its events record. */
  userId: string;
}

/** Who grants: the request's credential (an API key, an OAuth token, a dashboard session), or the above. */
export type Grantor = KeyPrincipal | Operator | MemberGrantor;

/**
 * What is granted: an API key's scopes (`apiKeyScopes`), the scopes an OAuth app may ask for (at
 * registration, on a change, and on a new client secret, which obtains them by client credentials),
 * the scopes a consent gives an app, or a role (an invitation, a role change).
 */
export type Grant =
  | { type: "api_key"; scopes: readonly string[] }
  | { type: "oauth_app"; scopes: readonly string[] }
  | { type: "oauth_consent"; scopes: readonly string[] }
  | { type: "role"; role: Role };

/**
 * Roles that manage people, and so grant roles (up to their own: ROLES is ordered from the highest).
 * Owners only, as the dashboard has always had it; an admin invites no one, not even an admin. Were
 * admins let in, the rank would still keep them from making an owner.
 */
const GRANTS_ROLES: readonly Role[] = ["owner"];

/**
 * A refused grant: `insufficient_scope` (403), naming each scope (or the role) that exceeds what the
 * grantor holds, one field error each at the request's field (`kind`, `scopes`, `scope`, `role`).
 */
export class GrantRefused extends AppError<"insufficient_scope"> {
  constructor(
    message: string,
    readonly exceeds: readonly string[],
    param: string,
  ) {
    const errors: FieldError[] = exceeds.map((what) => ({
      param,
      code: "exceeds_grantor",
      message: `${what} is more than the acting credential holds`,
    }));
    super("insufficient_scope", message, { errors });
    this.name = "GrantRefused";
  }
}

/** How a grantor is known: what it holds, and the role it acts with (a member's only). */
type Holder =
  | { kind: "operator" }
  | { kind: "oauth_token" }
  | { kind: "api_key"; scopes: readonly string[] }
  | { kind: "member"; scopes: readonly string[]; role: Role | undefined };

function holderOf(grantor: Grantor): Holder {
  if ("type" in grantor) {
    return grantor.type === "operator"
      ? { kind: "operator" }
      : { kind: "member", scopes: roleScopes(grantor.role), role: grantor.role };
  }
  if ("oauth" in grantor) return { kind: "oauth_token" };
  if (grantor.user) {
    const role = isRole(grantor.user.role) ? grantor.user.role : undefined;
    return { kind: "member", scopes: grantor.scopes, role };
  }
  return { kind: "api_key", scopes: grantor.scopes };
}

/** `finance:write` → ["finance", "write"]; undefined for anything else (never held, so never granted). */
function parse(scope: string): [ScopeName, Access] | undefined {
  const [name, access, extra] = scope.split(":");
  if (extra !== undefined || (access !== "read" && access !== "write")) return undefined;
  return (SCOPE_NAMES as readonly string[]).includes(name!) ? [name as ScopeName, access] : undefined;
}

/**
 * The scopes of `granted` that `held` does not cover, each as one family's `name:access` (a
 * wildcard names every family it lacks); empty when all are covered. `*` needs `*` itself.
 *
 * @example
 *   exceeding(["*:read", "keys:write"], ["*"])          // ["finance:write", "growth:write", …]
 *   exceeding(["*:read", "keys:write"], ["growth:read"]) // []
 */
export function exceeding(held: readonly string[], granted: readonly string[]): string[] {
  const out = new Set<string>();
  for (const scope of granted) {
    const [name, access] = scope === "*" ? ["*", "write"] : scope.split(":");
    const families = name === "*" ? SCOPE_NAMES.map((family) => `${family}:${access}`) : [scope];
    const lacking = families.filter((family) => {
      const parsed = parse(family);
      return !parsed || !hasScope(held, ...parsed);
    });
    // `*:write` covers every family today, but `*` is also whatever a family added later is.
    if (scope === "*" && lacking.length === 0 && !held.includes("*")) lacking.push("*");
    for (const family of lacking) out.add(family);
  }
  return [...out];
}

const rank = (role: Role) => ROLES.indexOf(role);

const WHO: Record<Holder["kind"], string> = {
  operator: "the operator",
  oauth_token: "an OAuth access token",
  api_key: "this API key",
  member: "your role",
};

const scopesOf = (grant: Grant): readonly string[] => ("scopes" in grant ? grant.scopes : [grant.role]);

const PARAM: Record<Grant["type"], string> = {
  api_key: "kind",
  oauth_app: "scopes",
  oauth_consent: "scope",
  role: "role",
};

/**
 * Whether `grantor` may make `grant`: undefined when it may, else the refusal naming what exceeds.
 *
 * - The operator may grant anything.
 * - An OAuth access token grants nothing (no key, app, client secret, consent or role): it is a
 *   delegation that ends when its installation is disconnected or its member demoted, and whatever
 *   it minted would outlive both. Stripe and GitHub likewise let no app token create keys or apps.
 * - An API key grants scopes it holds itself; it grants no role (people are managed by people).
 * - A member (a session, a consent) grants the scopes its role holds, and roles only when its role
 *   manages people (owners), up to its own.
 *
 * @example
 *   mayGrant(developerSession, { type: "api_key", scopes: ["*"] })?.exceeds // ["finance:write", …]
 *   mayGrant(OPERATOR, { type: "role", role: "owner" })                    // undefined
 */
export function mayGrant(grantor: Grantor, grant: Grant): GrantRefused | undefined {
  const holder = holderOf(grantor);
  const param = PARAM[grant.type];
  if (holder.kind === "operator") return undefined;
  if (holder.kind === "oauth_token") {
    return new GrantRefused(
      "An OAuth access token cannot grant access (API keys, OAuth apps and their secrets, consents, roles): use an API key or the dashboard",
      scopesOf(grant),
      param,
    );
  }
  if (grant.type === "role") return mayGrantRole(holder, grant.role);
  const exceeds = exceeding(holder.scopes, grant.scopes);
  if (exceeds.length === 0) return undefined;
  const who = holder.kind === "member" ? `${WHO.member} (${holder.role ?? "none"})` : WHO[holder.kind];
  return new GrantRefused(
    `This would grant ${exceeds.join(", ")}, which ${who} does not hold: no credential is wider than its creator`,
    exceeds,
    param,
  );
}

function mayGrantRole(holder: Holder & { kind: "api_key" | "member" }, role: Role): GrantRefused | undefined {
  const own = holder.kind === "member" ? holder.role : undefined;
  if (own && GRANTS_ROLES.includes(own) && rank(role) >= rank(own)) return undefined;
  const why =
    holder.kind === "api_key"
      ? "an API key grants no role"
      : own && GRANTS_ROLES.includes(own)
        ? `the ${own} role grants roles up to its own`
        : `only ${GRANTS_ROLES.join(", ")}s manage members`;
  return new GrantRefused(`Cannot grant the ${role} role: ${why}`, [role], "role");
}

/** Throws the refusal of `mayGrant`, if any: what a service calls before it grants. */
export function requireGrant(grantor: Grantor, grant: Grant): void {
  const refused = mayGrant(grantor, grant);
  if (refused) throw refused;
}
