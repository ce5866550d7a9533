/**
 * The narrow SQL port every other layer talks to. Queries are text with `$n`
 * placeholders and bound parameters, never interpolated values.
 *
 * Both adapters return the same JS types: `numeric` as string (exact), `int8` as
 * number, `date` as `YYYY-MM-DD` string, `timestamptz` as Date, `jsonb` parsed.
 */
import type { Disposable } from "../core/index.ts";

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends object = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface Store extends Queryable, Disposable {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction; it commits when `fn` resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTEN on `channel`: `onNotify` runs on each NOTIFY (delivered at commit) with its payload.
   * Resolves once listening, with the function that stops. The adapter re-listens after a
   * reconnect and then calls `onRelisten`: notifications sent while disconnected are lost, so
   * callers also poll, or drop what those notifications would have told them to.
   */
  listen?(
    channel: string,
    onNotify: (payload: string) => void,
    onRelisten?: () => void,
  ): Promise<() => Promise<void>>;
}
