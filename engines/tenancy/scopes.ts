import type { Engine } from "../resource.ts";

/** Scope families (ARCHITECTURE.md, "Authentication and permissions"). */
export const SCOPE_NAMES = ["finance", "growth", "talent", "sync", "functions", "webhooks", "keys"] as const;
export type ScopeName = (typeof SCOPE_NAMES)[number];
export type Access = "read" | "write";

export const KEY_KINDS = ["full_access", "read_only", "engine"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/**
 * Expands a key kind into its scopes: `full_access` → `*`, `read_only` → `*:read`,
 * `engine` → `<engine>:<access>` for each listed engine.
 */
export function scopesFor(kind: KeyKind, engines: readonly Engine[] = [], access: Access = "read"): string[] {
  if (kind === "full_access") return ["*"];
  if (kind === "read_only") return ["*:read"];
  return engines.map((engine) => `${engine}:${access}`);
}

/** Whether `granted` covers `name:access`; write implies read. */
export function hasScope(granted: readonly string[], name: ScopeName, access: Access): boolean {
  for (const scope of granted) {
    if (scope === "*") return true;
    const [grantedName, grantedAccess] = scope.split(":");
    if (grantedName !== "*" && grantedName !== name) continue;
    if (grantedAccess === access || grantedAccess === "write") return true;
  }
  return false;
}
