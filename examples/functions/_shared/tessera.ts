/**
 * Types of what Tessera injects into a function (DESIGN.md, "Edge functions"):
 * the `ctx` argument of `export default function (req, ctx)` and
 * `export default { fetch(req, env, ctx) }`, and the global `Tessera` for
 * `Deno.serve` handlers. Import them with `import type`: the import is erased
 * when the function is bundled, so this file never ships with a deploy.
 */

/** The caller, as authenticated by Tessera (null for an anonymous call to a public function). */
export interface TesseraUser {
  id: string;
  kind: string;
  scopes: string[];
}

/** One engine's per-organization JSON key-value state. */
export interface EngineState {
  get<T = unknown>(key: string): Promise<T | null>;
  set(key: string, value: unknown): Promise<void>;
  list(prefix?: string): Promise<Array<{ key: string; value: unknown }>>;
}

export interface TesseraContext {
  user: TesseraUser | null;
  /** The organization's latest intelligence snapshot, or null before the first one. */
  snapshot: unknown;
  engines: Record<"finance" | "growth" | "talent", EngineState>;
  /** The REST API as the caller: `platform.fetch("/v1/invoices?status=overdue")`. */
  platform: { fetch(path: string, init?: RequestInit): Promise<Response> };
  /** Keeps the invocation alive until the promise settles, after the response is sent. */
  waitUntil(promise: Promise<unknown>): void;
}

declare global {
  // `var` is how a global is declared in TypeScript.
  // deno-lint-ignore no-var
  var Tessera: TesseraContext | undefined;
}
