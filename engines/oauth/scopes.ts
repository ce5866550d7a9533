import { exceeding } from "../tenancy/grants.ts";
import { SCOPE_NAMES, type ScopeName } from "../tenancy/scopes.ts";

/**
 * The scopes an OAuth app may ask for: every scope family with `:read` or `:write`, the same
 * names API keys carry (ARCHITECTURE.md, "Authentication and permissions"). No wildcards: a consent
 * screen names exactly what it grants.
 */
export const OAUTH_SCOPES = SCOPE_NAMES.flatMap((name) => [`${name}:read`, `${name}:write`]);
export type OAuthScope = string;

const FAMILY_WORDS: Record<ScopeName, string> = {
  finance: "Finance: invoices, products and payments",
  growth: "Growth: contacts, deals and communications",
  talent: "Talent: candidates and skills",
  sync: "SYNC: the assistant's conversations and actions",
  functions: "Functions: deployed code, its logs and runs",
  webhooks: "Webhooks: endpoints and deliveries",
  keys: "API keys",
};

/** Whether `scope` is one OAuth knows (`finance:read`, …). */
export const isOAuthScope = (scope: string): boolean => OAUTH_SCOPES.includes(scope);

/**
 * The scopes of `requested` that both the app may ask for and `holder` (a role's scopes, with
 * wildcards) holds: nobody grants more than they have (the "may grant" rule's `exceeding`), no app
 * gets more than it registered.
 *
 * @example
 *   grantable(["finance:write", "keys:write"], ["finance:write"], ["*:read"]) // []
 *   grantable(["finance:read"], ["finance:read"], ["*:read"])                   // ["finance:read"]
 */
export function grantable(
  requested: readonly string[],
  appScopes: readonly string[],
  holder: readonly string[],
): string[] {
  return requested.filter(
    (scope) => isOAuthScope(scope) && appScopes.includes(scope) && exceeding(holder, [scope]).length === 0,
  );
}

/** Scopes grouped by engine in words, for a consent page: one line per family, reads before writes. */
export function describeScopes(scopes: readonly string[]): Array<{ family: string; access: string }> {
  return SCOPE_NAMES.flatMap((name) => {
    const write = scopes.includes(`${name}:write`);
    const read = scopes.includes(`${name}:read`);
    if (!write && !read) return [];
    return [{ family: FAMILY_WORDS[name], access: write ? "Read and change" : "Read" }];
  });
}
