import type { ListQuery } from "./list-query.ts";

/**
 * Rendered list pages (the JSON body), each kept with the version of its table for
 * its organization at the moment the page was read (migration 0013: the sum of
 * counters every write bumps in its own transaction). A page is served again only
 * after one read of the current version finds it unchanged, so a cached page is
 * never staler than an uncached one would be, on any number of nodes. Least
 * recently used pages go first once the byte budget is spent.
 */
export interface ListCache {
  /** The body stored under `key` if it was read at `version`, the table's current one. */
  lookup(key: string, version: bigint): string | undefined;
  /**
   * Reads the page with `read` and keeps it, or joins a read of the same page already
   * under way when that one began after `version` was current (so it is at least as
   * fresh): after a write, concurrent requests for a page share one query.
   */
  fill(key: string, version: bigint, read: () => Promise<CachedPage>): Promise<string>;
  readonly stats: ListCacheStats;
}

export interface CachedPage {
  version: bigint;
  body: string;
}

export interface ListCacheStats {
  hits: number;
  /** Pages read from the store: none was kept, or its version had moved on. */
  misses: number;
  /** Requests that waited for another's read of the same page instead of querying. */
  joined: number;
  bytes: number;
  pages: number;
}

/** The SQL expression of a table's version for organization `$1` (a bigint). */
export function versionSql(table: string): string {
  return `(SELECT COALESCE(sum(n), 0)::text FROM list_versions WHERE org_id = $1 AND tbl = '${table}')`;
}

/**
 * The key of a page: organization, table, today's date (statuses and `days_overdue`
 * follow it) and every part of the parsed query.
 */
export function pageKey(orgId: string, table: string, today: string, query: ListQuery): string {
  const filters = Object.keys(query.filters)
    .sort()
    .map((name) => [name, query.filters[name]]);
  return JSON.stringify([
    orgId,
    table,
    today,
    query.page,
    query.perPage,
    query.sort.field,
    query.sort.descending,
    query.q ?? null,
    query.createdAfter?.toISOString() ?? null,
    query.createdBefore?.toISOString() ?? null,
    query.updatedAfter?.toISOString() ?? null,
    query.updatedBefore?.toISOString() ?? null,
    filters,
  ]);
}

/** A cache of at most `maxBytes`; none when that is 0 (every list is then read from the store). */
/** A cache of at most `maxBytes`; none when that is 0 (every list is then read from the store). */
export function createListCache(maxBytes: number): ListCache | undefined {
  if (maxBytes <= 0) return undefined;
  const pages = new Map<string, CachedPage>();
  const reading = new Map<string, { after: bigint; body: Promise<string> }>();
  const stats: ListCacheStats = { hits: 0, misses: 0, joined: 0, bytes: 0, pages: 0 };
  // Strings are counted at two bytes a character: V8 may keep them one- or two-byte.
  const sizeOf = (key: string, body: string) => 2 * (key.length + body.length);

  const remove = (key: string, page: CachedPage) => {
    pages.delete(key);
    stats.bytes -= sizeOf(key, page.body);
  };

  const keep = (key: string, page: CachedPage) => {
    const existing = pages.get(key);
    if (existing) {
      if (existing.version > page.version) return;
      remove(key, existing);
    }
    const size = sizeOf(key, page.body);
    if (size <= maxBytes) {
      pages.set(key, page);
      stats.bytes += size;
    }
    for (const [oldest, old] of pages) {
      if (stats.bytes <= maxBytes) break;
      remove(oldest, old);
    }
    stats.pages = pages.size;
  };

  return {
    stats,
    lookup(key, version) {
      const page = pages.get(key);
      if (page?.version !== version) return undefined;
      stats.hits++;
      // The most recently used page goes to the back of the map, the first evicted are in front.
      pages.delete(key);
      pages.set(key, page);
      return page.body;
    },
    fill(key, version, read) {
      const pending = reading.get(key);
      if (pending && pending.after >= version) {
        stats.joined++;
        return pending.body;
      }
      stats.misses++;
      const body = read().then((page) => {
        keep(key, page);
        return page.body;
      });
      const entry = { after: version, body };
      reading.set(key, entry);
      const done = () => {
        if (reading.get(key) === entry) reading.delete(key);
      };
      body.then(done, done);
      return body;
    },
  };
}
