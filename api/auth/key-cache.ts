import { safeEqual, sha256Hex, type Clock } from "../../core/index.ts";
import {
  findPrincipalByHash,
  looksLikeApiKey,
  revokeApiKey,
  type Actor,
  type ApiKey,
  type KeyPrincipal,
} from "../../engines/index.ts";
import type { Queryable, Store } from "../../store/index.ts";

/**
 * Resolves bearer secrets to principals with an in-process cache, so a request
 * costs one SHA-256 and a map lookup. Keys are high-entropy: SHA-256 is the right
 * hash, never a slow KDF per request. Revocation on this node is immediate; on
 * PostgreSQL, other nodes hear of it by message at commit (services.ts wires
 * store/invalidations.ts to their `invalidate`), and the TTL is the safety net.
 *
 * Revoking is this service's too (CONTRIBUTING.md, "How the code should feel": a service keeps
 * its own invariants): `revoke` revokes and drops the key here in one call, so no caller
 * (dashboard, `/v1`, `/admin/v1`, CLI) can forget the second half. Other nodes are told by the
 * store itself: migration 0018's trigger NOTIFYs them when the revocation commits, whoever
 * wrote it.
 *
 * @example
 *   const key = await keys.revoke(orgId, "key_3kTqZ9", actorOf(principal)); // refused on this node from now on
 */
export interface KeyCache {
  resolve(secret: string): Promise<KeyPrincipal | undefined>;
  /**
   * Revokes a key (`revokeApiKey`: `api_key.revoked` by `actor` the first time, the message to
   * every node at commit) and drops it from this node's cache once committed. Throws `not_found`.
   */
  revoke(orgId: string, keyId: string, actor: Actor): Promise<ApiKey>;
  /** Drops a key changed elsewhere (the invalidation message of another node's change). */
  invalidate(keyId: string): void;
  clear(): void;
}

export interface KeyCacheOptions {
  /** The store, so `revoke` commits in its own transaction before it drops the key. */
  db: Queryable | Store;
  clock: Clock;
  ttlMs: number;
  /** Unknown secrets are remembered briefly so a flood of bad keys spares the store. */
  negativeTtlMs?: number;
  maxEntries?: number;
}

interface Entry {
  hash: string;
  principal: KeyPrincipal | undefined;
  expiresAt: number;
}

export function createKeyCache(options: KeyCacheOptions): KeyCache {
  const { db, clock, ttlMs } = options;
  const negativeTtlMs = options.negativeTtlMs ?? Math.min(ttlMs, 2_000);
  const maxEntries = options.maxEntries ?? 10_000;
  const byHash = new Map<string, Entry>();
  const hashesByKeyId = new Map<string, string>();

  const remember = (entry: Entry) => {
    if (byHash.size >= maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = byHash.keys().next().value;
      if (oldest !== undefined) byHash.delete(oldest);
    }
    byHash.set(entry.hash, entry);
    if (entry.principal) hashesByKeyId.set(entry.principal.keyId, entry.hash);
  };

  const invalidate = (keyId: string) => {
    const hash = hashesByKeyId.get(keyId);
    if (hash) byHash.delete(hash);
    hashesByKeyId.delete(keyId);
  };

  return {
    async resolve(secret) {
      if (!looksLikeApiKey(secret)) return undefined;
      const hash = sha256Hex(secret);
      const now = clock.nowMs();
      const cached = byHash.get(hash);
      if (cached && cached.expiresAt > now && safeEqual(cached.hash, hash)) return cached.principal;
      const principal = await findPrincipalByHash(db, hash);
      if (ttlMs > 0) remember({ hash, principal, expiresAt: now + (principal ? ttlMs : negativeTtlMs) });
      return principal;
    },
    async revoke(orgId, keyId, actor) {
      const key = await revokeApiKey(db, orgId, keyId, clock, actor);
      invalidate(key.id);
      return key;
    },
    invalidate,
    clear() {
      byHash.clear();
      hashesByKeyId.clear();
    },
  };
}
