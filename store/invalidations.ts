import { z } from "zod";
import { disposable, type Disposable, type Logger } from "../core/index.ts";
import type { Store } from "./port.ts";

/**
 * Cross-node cache invalidation by message, not by TTL. Each node caches API keys and the
 * deployment serving each function; when any node (or the CLI, or an operator's SQL) changes
 * one, the triggers of migration 0018 NOTIFY at commit and every node listening drops its
 * entry at once. The caches' TTLs stay, as the safety net for what a message cannot cover.
 *
 * Why PostgreSQL LISTEN/NOTIFY rather than Redis pub/sub: the store is the one part every
 * node of a cluster shares (Redis is optional), the message is sent by the transaction that
 * makes the change and only if it commits (no window between commit and publish in which a
 * crash loses it), and a trigger catches every writer, not only the code paths that
 * remember to publish. The cost is one connection per process, which postgres.js keeps
 * for LISTEN, re-listening after a reconnect.
 *
 * Messages sent while a node is disconnected are lost: after a reconnect each subscriber's
 * `onReset` drops everything it caches.
 *
 * @example
 *   const bus = createInvalidations(store, log);
 *   await bus.subscribe(API_KEY_CHANGED, { onMessage: ({ id }) => keys.invalidate(id), onReset: () => keys.clear() });
 *   await bus.dispose();
 */

/** A NOTIFY channel migration 0018 sends on, and the JSON its payloads hold. */
export interface InvalidationChannel<T> {
  name: string;
  schema: z.ZodType<T>;
}

/** An API key was revoked or changed (or deleted). */
export const API_KEY_CHANGED: InvalidationChannel<{ id: string }> = {
  name: "tessera_api_key_changed",
  schema: z.object({ id: z.string() }),
};

/** A function was deployed, rolled back, deleted, or its secrets or triggers changed. */
export const FUNCTION_CHANGED: InvalidationChannel<{ org_id: string; id: string }> = {
  name: "tessera_function_changed",
  schema: z.object({ org_id: z.string(), id: z.string() }),
};

export interface InvalidationHandler<T> {
  /** A change committed on some node, this one included. */
  onMessage(message: T): void;
  /** The connection was lost and is back: messages may have been missed, drop everything. */
  onReset(): void;
}

export interface Invalidations extends Disposable {
  /** Resolves once listening: from then on no committed change goes unheard (short of a reconnect). */
  subscribe<T>(channel: InvalidationChannel<T>, handler: InvalidationHandler<T>): Promise<void>;
}

export function createInvalidations(store: Store, log: Logger): Invalidations {
  const unlistens: Array<() => Promise<void>> = [];
  return disposable({
    async subscribe(channel, handler) {
      // A store without LISTEN (a test's wrapper) hears nothing: the TTLs alone apply.
      if (!store.listen) return;
      const onNotify = (payload: string) => {
        const message = parsePayload(channel, payload);
        if (message) return handler.onMessage(message);
        // A message this node cannot read still says something changed.
        log.warn("unreadable invalidation message; dropping the whole cache", { channel: channel.name });
        handler.onReset();
      };
      const onRelisten = () => {
        log.info("listening again after a reconnect; dropping the cache", { channel: channel.name });
        handler.onReset();
      };
      unlistens.push(await store.listen(channel.name, onNotify, onRelisten));
    },
    async dispose() {
      await Promise.all(unlistens.splice(0).map((unlisten) => unlisten().catch(() => undefined)));
    },
  });
}

function parsePayload<T>(channel: InvalidationChannel<T>, payload: string): T | undefined {
  try {
    const parsed = channel.schema.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
