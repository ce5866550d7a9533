/**
 * What Tessera hands a function (ARCHITECTURE.md, "Edge functions"): the `ctx` of
 * `export default function (req, ctx)` and `export default { fetch(req, env, ctx) }`,
 * and the global `Tessera` of `Deno.serve` handlers. Types only: import them with
 * `import type`, which bundling erases, so nothing of this file is deployed.
 *
 * @example
 *   import type { Context } from "tessera/types";
 *
 *   export default async function (req: Request, ctx: Context): Promise<Response> {
 *     const seen = await ctx.engines.finance.get<string[]>("seen");
 *     return Response.json({ caller: ctx.user?.type ?? "anonymous", seen: seen ?? [] });
 *   }
 *
 * The runtime builds these in `runtime/invoke.ts` (`callerOf`, `contextOf`, the engine ops) and
 * `sandbox/guest/serve.ts` (`makeCtx`); `test/sdk/context.test.ts` fails when they drift apart.
 */

import type { PlatformRoutes } from "./api.ts";

/** The API's schemas, as the TypeScript client names them: `Api.Contact`, `Api.Invoice`, … */
export type * as Api from "./api.ts";

/** The engines whose state a function reaches as `ctx.engines.<engine>`. */
export type EngineName = "finance" | "growth" | "talent" | "sync";

/** An API key's kind (`tessera keys create --kind`). */
export type KeyKind = "full_access" | "read_only" | "engine";

/** A member's role in the organization. */
export type Role = "owner" | "admin" | "developer" | "viewer";

interface CallerOrganization {
  organization_id: string;
  /** The organization's name. */
  organization: string;
  /** What the caller may do: `*`, `*:read`, `finance:write`, … */
  scopes: string[];
}

/** A call made with an API key: its id, never its secret. */
export interface ApiKeyCaller extends CallerOrganization {
  type: "api_key";
  key_id: string;
  kind: KeyKind;
}

/** A dashboard user acting through a session: who, and the role's scopes (never the session's token). */
export interface UserCaller extends CallerOrganization {
  type: "user";
  user: { id: string; email: string; name: string };
  role: Role;
}

/** An OAuth app, acting for the member who installed it (`user: null`: the app itself, client credentials). */
export interface OAuthCaller extends CallerOrganization {
  type: "oauth";
  app: { id: string; name: string; client_id: string };
  installation_id: string | null;
  user: { id: string; email: string; name: string; role: Role } | null;
}

/** `ctx.user`: who called, as Tessera authenticated them. */
export type Caller = ApiKeyCaller | UserCaller | OAuthCaller;

/** `ctx.engines.<engine>.list(options)`. */
export interface EngineStateListOptions {
  /** Only keys that start with it. */
  prefix?: string;
  /** The `cursor` of the previous page. */
  cursor?: string | null;
  /** Entries per page, 1–1000 (default 100). */
  limit?: number;
}

/** One page of entries in key (code point) order; `cursor` is null on the last page. */
export interface EngineStatePage<T = unknown> {
  entries: Array<{ key: string; value: T }>;
  cursor: string | null;
}

/**
 * One engine's per-organization JSON key-value state (docs/engine-state.md): the same
 * entries as `/v1/engines/<engine>/state`. Keys are 1–512 characters; values any JSON.
 */
export interface EngineState {
  /** The value, or null when the key is absent. */
  get<T = unknown>(key: string): Promise<T | null>;
  /** Creates or replaces the entry (`undefined` is stored as null). */
  set(key: string, value: unknown): Promise<void>;
  /** Whether there was an entry to delete. */
  delete(key: string): Promise<boolean>;
  list<T = unknown>(options?: EngineStateListOptions): Promise<EngineStatePage<T>>;
}

/** Money per currency (ISO 4217): `{ EUR: 1250.5 }`. */
export type Money = Record<string, number>;
type OpenDealStage = "lead" | "qualified" | "proposal";
type CandidateStatus = "applied" | "screening" | "interview" | "offer" | "hired" | "rejected";

/** `ctx.snapshot`: the organization's latest intelligence snapshot (docs/intelligence.md). */
export interface IntelligenceSnapshot {
  id: string;
  object: "intelligence_snapshot";
  computed_at: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, string>;
  finance: {
    outstanding: Money;
    outstanding_count: number;
    overdue: Money;
    overdue_count: number;
    paid_30_days: Money;
    invoiced_90_days: Money;
    dso_days: Record<string, number | null>;
  };
  growth: {
    contacts: number;
    new_contacts_30_days: number;
    open_deals_by_stage: Record<OpenDealStage, number>;
    pipeline_value_by_stage: Record<OpenDealStage, Money>;
    deals_won: number;
    deals_lost: number;
    win_rate: number | null;
  };
  talent: {
    candidates_by_status: Record<CandidateStatus, number>;
    skills_verified_30_days: number;
  };
}

/** An HTTP method `PlatformRoutes` types answers for. */
export type PlatformMethod = keyof PlatformRoutes;

/**
 * `ctx.platform.fetch`'s answer to a route of the API: a `Response` whose `json()` is typed by the
 * OpenAPI document (`sdk/api.ts`, generated with the TypeScript client's types). It is the body of a
 * 2xx answer: check `res.ok` first (an error's body is a problem+json `Problem`).
 */
export interface PlatformResponse<T> extends Response {
  json(): Promise<T>;
}

/** `init` of a typed `ctx.platform.fetch`: the method, upper case, as a literal (default GET). */
export interface PlatformRequestInit<M extends PlatformMethod = "GET"> extends RequestInit {
  method?: M;
}

/** What `PlatformRoutes[M]` answers at `path` (its query string ignored), or never when no route matches. */
export type PlatformAnswer<M extends PlatformMethod, P extends string> = {
  [T in keyof PlatformRoutes[M] & string]: PathMatches<PathOnly<P>, T> extends true
    ? PlatformRoutes[M][T]
    : never;
}[keyof PlatformRoutes[M] & string];

type PathOnly<P extends string> = P extends `${infer Path}?${string}` ? Path : P;

/** Whether a path matches a template segment by segment; `{id}` matches one non-empty segment. */
type PathMatches<P extends string, T extends string> = T extends `${infer Head}/${infer Rest}`
  ? P extends `${infer PathHead}/${infer PathRest}`
    ? SegmentMatches<PathHead, Head> extends true
      ? PathMatches<PathRest, Rest>
      : false
    : false
  : P extends `${string}/${string}`
    ? false
    : SegmentMatches<P, T>;

type SegmentMatches<P extends string, T extends string> = T extends `{${string}}`
  ? P extends ""
    ? false
    : true
  : P extends T
    ? true
    : false;

/** The typed response of `fetch(path, init)`, or a plain `Response` for a path the document does not have. */
export type PlatformResult<M extends PlatformMethod, P extends string> = [PlatformAnswer<M, P>] extends [
  never,
]
  ? Response
  : PlatformResponse<PlatformAnswer<M, P>>;

/**
 * `ctx.platform`: the REST API as the caller, in-process.
 *
 * @example
 *   const res = await ctx.platform.fetch("/v1/invoices?status=overdue");
 *   const { data } = await res.json(); // Invoice[]
 *   const made = await ctx.platform.fetch("/v1/contacts", { method: "POST", body: JSON.stringify({ name: "Ada" }) });
 *   const contact = await made.json(); // Contact
 */
export interface Platform {
  /**
   * A path of the API (`/v1/invoices?status=overdue`), never another origin. A string path and an
   * upper-case literal method (or none: GET) of a route in the OpenAPI document answer a
   * `PlatformResponse` whose `json()` is that route's schema; anything else a plain `Response`.
   */
  fetch<P extends string, M extends PlatformMethod = "GET">(
    path: P,
    init?: PlatformRequestInit<M>,
  ): Promise<PlatformResult<M, P>>;
  fetch(path: string | URL | Request, init?: RequestInit): Promise<Response>;
}

/** The function being run: `ctx.function`. */
export interface FunctionInfo {
  id: string;
  name: string;
  version: number;
}

/** The per-request context; frozen. */
export interface Context {
  /** The caller; null for an anonymous call to a public function. */
  readonly user: Caller | null;
  readonly function: FunctionInfo;
  readonly organization_id: string;
  /** The `X-Request-Id` the caller gets; it finds this invocation's log lines. */
  readonly request_id: string;
  /** The latest intelligence snapshot, or null before the first (read on first use). */
  readonly snapshot: IntelligenceSnapshot | null;
  readonly engines: Readonly<Record<EngineName, EngineState>>;
  readonly platform: Platform;
  /** Keeps the invocation alive after the response until the promise settles (within the wall time). */
  waitUntil(promise: Promise<unknown>): void;
  /** Accepted for Workers compatibility; does nothing. */
  passThroughOnException(): void;
}

/** A function's secrets: the `env` of `export default { fetch(req, env, ctx) }` (also `Deno.env`). */
export type Env = Record<string, string>;

/** `export default function (req, ctx)`. */
export type Handler = (request: Request, ctx: Context) => Response | Promise<Response>;

/** `export default { fetch(req, env, ctx) }`. */
export interface FetchHandler {
  fetch(request: Request, env: Env, ctx: Context): Response | Promise<Response>;
}

declare global {
  /** The current request's `ctx`, for `Deno.serve` handlers (Tessera only; plain Deno has none). */
  // `var` is how a global is declared in TypeScript.
  // deno-lint-ignore no-var
  var Tessera: Context;
}
