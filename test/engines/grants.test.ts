import { describe, expect, it } from "vitest";
import { AppError } from "../../core/index.ts";
import {
  apiKeyScopes,
  exceeding,
  GrantRefused,
  mayGrant,
  OPERATOR,
  roleScopes,
  type Grant,
  type Grantor,
  type KeyPrincipal,
  type OAuthPrincipal,
  type Role,
} from "../../engines/index.ts";

/**
 * The "may grant" rule as a pure function: every kind of grantor against every kind of grant.
 * test/security/scopes-and-grants.test.ts drives the same table through the HTTP paths.
 */
const base = { keyId: "key_1", orgId: "org_1", orgName: "acme", plan: "pro" as const };
const key = (scopes: string[]): KeyPrincipal => ({ ...base, kind: "engine", scopes });
const session = (role: Role): KeyPrincipal => ({
  ...base,
  kind: "full_access",
  scopes: roleScopes(role),
  user: { id: "usr_1", email: "m@example.com", name: "M", role },
});
const token = (scopes: string[], role: Role | null): OAuthPrincipal => ({
  ...base,
  kind: "engine",
  scopes,
  oauth: {
    app: { id: "oapp_1", name: "App", client_id: "oc_1" },
    installationId: role ? "oins_1" : null,
    user: role ? { id: "usr_1", email: "m@example.com", name: "M", role } : null,
  },
});

const GRANTS: Record<string, Grant> = {
  "key full_access": { type: "api_key", scopes: apiKeyScopes({ kind: "full_access" }) },
  "key read_only": { type: "api_key", scopes: apiKeyScopes({ kind: "read_only" }) },
  "key finance write": {
    type: "api_key",
    scopes: apiKeyScopes({ kind: "engine", engines: ["finance"], access: "write" }),
  },
  "key growth read": { type: "api_key", scopes: apiKeyScopes({ kind: "engine", engines: ["growth"] }) },
  "app finance:write": { type: "oauth_app", scopes: ["finance:write"] },
  "app growth:read": { type: "oauth_app", scopes: ["growth:read"] },
  "app keys:write": { type: "oauth_app", scopes: ["keys:write"] },
  "consent finance:write": { type: "oauth_consent", scopes: ["finance:write"] },
  "consent growth:read": { type: "oauth_consent", scopes: ["growth:read"] },
  "role owner": { type: "role", role: "owner" },
  "role admin": { type: "role", role: "admin" },
  "role developer": { type: "role", role: "developer" },
  "role viewer": { type: "role", role: "viewer" },
};

/** What each grantor may grant, by name in GRANTS; everything else is refused. */
const ALLOWED: Array<[string, Grantor, string[]]> = [
  ["a full_access key", key(["*"]), Object.keys(GRANTS).filter((name) => !name.startsWith("role"))],
  [
    "a read_only key",
    key(["*:read"]),
    ["key read_only", "key growth read", "app growth:read", "consent growth:read"],
  ],
  [
    "an engine key with finance:write",
    key(["finance:write"]),
    ["key finance write", "app finance:write", "consent finance:write"],
  ],
  [
    "an engine key with growth:read",
    key(["growth:read"]),
    ["key growth read", "app growth:read", "consent growth:read"],
  ],
  ["an OAuth token with keys:write only", token(["keys:write"], "owner"), []],
  ["an OAuth token with every scope", token(["*"], "owner"), []],
  ["a client credentials token with every scope", token(["*"], null), []],
  ["an owner's session", session("owner"), Object.keys(GRANTS)],
  ["an admin's session", session("admin"), Object.keys(GRANTS).filter((name) => !name.startsWith("role"))],
  [
    "a developer's session",
    session("developer"),
    ["key read_only", "key growth read", "app growth:read", "app keys:write", "consent growth:read"],
  ],
  [
    "a viewer's session",
    session("viewer"),
    ["key read_only", "key growth read", "app growth:read", "consent growth:read"],
  ],
  [
    "a developer consenting",
    { type: "member", role: "developer", userId: "usr_consenting" },
    ["key read_only", "key growth read", "app growth:read", "app keys:write", "consent growth:read"],
  ],
  ["the operator (admin token, CLI)", OPERATOR, Object.keys(GRANTS)],
];

describe("may grant", () => {
  it.each(ALLOWED)("lets %s grant only what it holds", (_name, grantor, allowed) => {
    const outcome = Object.fromEntries(
      Object.entries(GRANTS).map(([name, grant]) => [name, mayGrant(grantor, grant) ? "refused" : "allowed"]),
    );
    const expected = Object.fromEntries(
      Object.keys(GRANTS).map((name) => [name, allowed.includes(name) ? "allowed" : "refused"]),
    );
    expect(outcome).toEqual(expected);
  });

  it("refuses a developer's full_access key as insufficient_scope, naming each scope beyond the role", () => {
    const refused = mayGrant(session("developer"), GRANTS["key full_access"]!);
    expect(refused).toBeInstanceOf(GrantRefused);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused!.code).toBe("insufficient_scope");
    expect(refused!.exceeds).toEqual(["finance:write", "growth:write", "talent:write", "sync:write"]);
    expect(refused!.errors.map((error) => [error.param, error.code])).toEqual(
      refused!.exceeds.map(() => ["kind", "exceeds_grantor"]),
    );
    expect(refused!.message).toContain("your role (developer)");
  });

  it("refuses every grant of an OAuth token, whatever its scopes", () => {
    const refused = mayGrant(token(["keys:write"], "owner"), GRANTS["app finance:write"]!);
    expect(refused!.exceeds).toEqual(["finance:write"]);
    expect(refused!.errors[0]!.param).toBe("scopes");
    expect(refused!.message).toMatch(/OAuth access token cannot grant/);
  });

  it("names the role a member cannot grant, and why", () => {
    expect(mayGrant(session("admin"), GRANTS["role owner"]!)!.message).toMatch(/only owners manage members/);
    expect(mayGrant(key(["*"]), GRANTS["role viewer"]!)!.message).toMatch(/an API key grants no role/);
  });

  it.each([
    [["*"], ["*"], []],
    [["*:read"], ["*:read"], []],
    [
      ["*:read", "keys:write"],
      ["*"],
      ["finance:write", "growth:write", "talent:write", "sync:write", "functions:write", "webhooks:write"],
    ],
    [["*:read"], ["finance:write", "growth:read"], ["finance:write"]],
    [["finance:write"], ["finance:read"], []],
    [
      ["finance:read"],
      ["*:read"],
      ["growth:read", "talent:read", "sync:read", "functions:read", "webhooks:read", "keys:read"],
    ],
    // `*:write` covers every family today, but is not `*`.
    [["*:write"], ["*"], ["*"]],
    [["*"], ["admin:write", "finance", "finance:delete"], ["admin:write", "finance", "finance:delete"]],
  ])("exceeding(%j, %j) → %j", (held, granted, expected) => {
    expect(exceeding(held, granted)).toEqual(expected);
  });
});
