import type { Clock } from "../core/index.ts";
import type { Store } from "../store/index.ts";
import { invoices } from "./finance/invoices.ts";
import { payments } from "./finance/payments.ts";
import { products } from "./finance/products.ts";
import { communications } from "./growth/communications.ts";
import { contacts } from "./growth/contacts.ts";
import { deals } from "./growth/deals.ts";
import { MEMBER_EVENT_TYPES } from "./people/members.ts";
import { SESSION_EVENT_TYPES } from "./people/sessions.ts";
import { OAUTH_EVENT_TYPES } from "./oauth/installations.ts";
import { API_KEY_EVENT_TYPES } from "./tenancy/api-keys.ts";
import { candidates } from "./talent/candidates.ts";
import { skills } from "./talent/skills.ts";
import type { ListCache } from "./list-cache.ts";
import { createResourceService, type AnyResourceService } from "./resource.ts";

export * from "./fields.ts";
export * from "./list-cache.ts";
export * from "./list-query.ts";
export * from "./paging.ts";
export * from "./resource.ts";
export * from "./finance/invoices.ts";
export * from "./finance/payments.ts";
export * from "./finance/products.ts";
export * from "./growth/communications.ts";
export * from "./growth/contacts.ts";
export * from "./growth/deals.ts";
export * from "./tenancy/api-keys.ts";
export * from "./tenancy/engine-state.ts";
export * from "./tenancy/grants.ts";
export * from "./tenancy/organizations.ts";
export * from "./tenancy/scopes.ts";
export * from "./talent/candidates.ts";
export * from "./talent/skills.ts";

/** Every resource definition, in the order the API documents them. */
export const RESOURCES = [
  invoices,
  products,
  payments,
  contacts,
  deals,
  communications,
  candidates,
  skills,
] as const;

/** One service per resource, sharing the store, the clock and the list cache (none: every list is read). */
export function createResourceServices(
  store: Store,
  clock: Clock,
  listCache?: ListCache,
): Map<string, AnyResourceService> {
  return new Map(
    RESOURCES.map((definition) => [
      definition.name,
      createResourceService(definition as never, store, clock, listCache),
    ]),
  );
}
export * from "./tenancy/idempotency.ts";
export * from "./seed.ts";
export * from "./scheduler.ts";
export * from "./housekeeping.ts";
export * from "./backups.ts";
export * from "./events/actor.ts";
export * from "./events/audit.ts";
export * from "./events/catalog.ts";
export * from "./events/outbox.ts";
export * from "./finance/overdue.ts";
export * from "./intelligence/schema.ts";
export * from "./intelligence/compute.ts";
export * from "./intelligence/snapshots.ts";
export * from "./intelligence/jobs.ts";

/** Event kinds of the platform itself (not of a resource). */
export const PLATFORM_EVENT_TYPES = [
  ...API_KEY_EVENT_TYPES,
  ...MEMBER_EVENT_TYPES,
  ...SESSION_EVENT_TYPES,
  ...OAUTH_EVENT_TYPES,
];
export * from "./people/index.ts";
export * from "./oauth/index.ts";
