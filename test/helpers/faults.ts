import { disposable } from "../../core/index.ts";
import type { Queryable, Row, Store } from "../../store/index.ts";

/**
 * A store that misbehaves on demand, wrapping a real one: queries matching a
 * pattern throw (a driver failure the API did not foresee), and the next
 * transaction can be held open to make "still in flight" deterministic. It
 * shares the real store's connection: dispose the real store, not this one.
 */
export interface FaultyStore {
  store: Store;
  /** Queries whose SQL matches `pattern` throw `error` until `heal()`. */
  failQueries(pattern: RegExp, error: Error): void;
  /**
   * The next transaction waits before it begins until `release()`; `reached`
   * resolves once a request is waiting there.
   */
  holdNextTransaction(): { reached: Promise<void>; release(): void };
  heal(): void;
}

export function createFaultyStore(real: Store): FaultyStore {
  let failure: { pattern: RegExp; error: Error } | undefined;
  let hold: { arrive(): void; gate: Promise<void> } | undefined;

  const wrap = (db: Queryable): Queryable => ({
    query<T extends object = Row>(text: string, params?: readonly unknown[]): Promise<T[]> {
      if (failure?.pattern.test(text)) return Promise.reject(failure.error);
      return db.query<T>(text, params);
    },
    exec: (script) => db.exec(script),
  });

  const store: Store = disposable({
    kind: real.kind,
    ...wrap(real),
    async transaction(fn) {
      const held = hold;
      hold = undefined;
      if (held) {
        held.arrive();
        await held.gate;
      }
      return real.transaction((tx) => fn(wrap(tx)));
    },
    dispose: () => Promise.resolve(),
  });

  return {
    store,
    failQueries(pattern, error) {
      failure = { pattern, error };
    },
    holdNextTransaction() {
      let arrive!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (arrive = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      hold = { arrive, gate };
      return { reached, release };
    },
    heal() {
      failure = undefined;
    },
  };
}
