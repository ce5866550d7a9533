import { z } from "zod";
import {
  AppError,
  HOP_BY_HOP_HEADERS,
  isAppError,
  newId,
  type Clock,
  type FunctionConfig,
  type FunctionLimits,
  type Logger,
  type Plan,
  type SecretBox,
} from "../core/index.ts";
import { ENGINES, isOAuthPrincipal, type KeyPrincipal } from "../engines/index.ts";
import type { FunctionKey } from "../sandbox/index.ts";
import { createFunctionFileSet } from "../sandbox/index.ts";
import type { Store } from "../store/index.ts";
import { selectSealedSecrets } from "./function-queries.ts";
import { parseLimits } from "./function-rows.ts";
import type { FunctionAuth, FunctionLogLevel } from "./function-schemas.ts";
import {
  findServing,
  saveCachedData,
  selectDeploymentFiles,
  selectProgram,
  type ServingRow,
} from "./invoke-queries.ts";
import { insertLogLines } from "./log-queries.ts";
import type { OutboundFetch } from "./outbound.ts";
import { linkSocket, type UpgradeHandshake } from "./websocket.ts";
import type {
  HostSocket,
  IsolatePool,
  InvocationIO,
  LoadedFunction,
  OutboundRequest,
  OutboundResponse,
  SocketEvents,
  SocketUpgrade,
} from "../sandbox/index.ts";

/** Engine state as functions reach it (`ctx.engines.<engine>`); the API's `/v1/engines/{engine}/state` is the same store. */
export interface EngineStateAccess {
  get(orgId: string, engine: string, key: string): Promise<{ value: unknown } | null>;
  set(orgId: string, engine: string, key: string, value: unknown): Promise<unknown>;
  delete(orgId: string, engine: string, key: string): Promise<boolean>;
  list(
    orgId: string,
    engine: string,
    options: { prefix?: string; cursor?: string; limit: number },
  ): Promise<{ entries: Array<{ key: string; value: unknown }>; nextCursor: string | null }>;
}

export interface InvokerOptions {
  store: Store;
  clock: Clock;
  box: SecretBox;
  config: FunctionConfig;
  log: Logger;
  pool: IsolatePool;
  outbound: OutboundFetch;
  engineState: EngineStateAccess;
  /** The organization's latest intelligence snapshot, or null before the first. */
  latestSnapshot: (orgId: string) => Promise<unknown>;
  /** The REST API in-process (`ctx.platform.fetch`): the app's own `fetch`. */
  platformFetch: (request: Request) => Promise<Response>;
}

/** The deployment a request is served by. */
export interface ActiveFunction {
  orgId: string;
  /** The organization's plan: anonymous calls to a public function count against its rate limit. */
  plan: Plan;
  functionId: string;
  name: string;
  version: number;
  auth: FunctionAuth;
  limits: FunctionLimits;
  /** Changes when secrets change, so a warm isolate never serves stale `Deno.env`. */
  revision: string;
}

export interface IncomingInvocation {
  requestId: string;
  method: string;
  /** The original public URL. */
  url: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  /** The authenticated caller; undefined for an anonymous call to a public function. */
  principal: KeyPrincipal | undefined;
  /** The caller's `Authorization` header, used by `ctx.platform.fetch` (never shown to the function). */
  authorization: string | undefined;
  /** How many invocations deep this one is (a function calling the API that calls a function). */
  depth: number;
}

/**
 * A function's answer, framework-neutral: the API's adapters write it to Node's response
 * or wrap it in a Fetch `Response`. Hop-by-hop headers are gone; HEAD and the null-body
 * statuses have no body; a streamed body errors past the response size limit.
 */
export interface FunctionResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  /** A string when the function answered with text (JSON included): written as UTF-8. */
  body: Uint8Array | string | ReadableStream<Uint8Array> | null;
}

export interface FunctionInvoker {
  /** The function `ref` (name or id) names: in `orgId`, or, for anonymous callers, a public one by id. */
  resolve(orgId: string | undefined, ref: string): Promise<ActiveFunction | undefined>;
  invoke(fn: ActiveFunction, request: IncomingInvocation): Promise<FunctionResponse>;
  /**
   * A request that arrived as a WebSocket upgrade (a GET without a body). Refused (429) past
   * the function's open sockets on this node. When the function accepts it
   * (`Deno.upgradeWebSocket`), the handshake completes and the answer is a 101 with no body;
   * otherwise the answer is the function's, as `invoke`'s.
   */
  upgrade(
    fn: ActiveFunction,
    request: IncomingInvocation,
    handshake: UpgradeHandshake,
  ): Promise<FunctionResponse>;
  /** After a deploy, rollback, delete or secrets change: forget cached lookups, retire isolates. */
  forget(orgId: string, functionId: string): void;
  /**
   * Another node changed a function of `orgId` (every organization without it): forget the
   * cached lookups, keep the isolates. One of a version no longer served is not chosen again
   * and idles out; retiring it would fail this node's requests in flight.
   */
  forgetLookups(orgId?: string): void;
  /** After a snapshot refresh: the next invocation reads the new one. */
  forgetSnapshot(orgId: string): void;
}

/** Nested invocations allowed (function → API → function …). */
export const MAX_INVOCATION_DEPTH = 3;
const MAX_LOG_LINES = 1_000;
const MAX_LOG_LINE_CHARS = 8_192;
const RESOLVE_TTL_MS = 1_000;
/** How long a node may serve an organization's snapshot before reading the latest again. */
const SNAPSHOT_TTL_MS = 10_000;
/** V8 code cache is only valid for the V8 build that produced it. */
const CACHE_TAG = `v8/${process.versions.v8}`;
/** What of a function's response headers the host keeps: not hop-by-hop ones, nor the length it frames itself. */
const endToEnd = ([name]: [string, string]) => {
  const lower = name.toLowerCase();
  return !HOP_BY_HOP_HEADERS.has(lower) && lower !== "content-length";
};

/**
 * A request a function made through `ctx.platform.fetch`: a `Request` that carries how many
 * invocations deep it is and, when there is no credential to forward (a trigger run acts as
 * the key that deployed the function, whose secret is not kept), the caller it acts as. Only
 * this process makes one (a function's own requests arrive as bytes), so nothing a function
 * sends can claim either: the API reads them with `instanceof`.
 */
export class PlatformRequest extends Request {
  constructor(
    url: URL,
    init: RequestInit,
    readonly depth: number,
    readonly principal: KeyPrincipal | undefined,
  ) {
    super(url, init);
  }
}

/** How many invocations deep a request is (0: it came from outside). */
export function invocationDepthOf(request: Request): number {
  return request instanceof PlatformRequest ? request.depth : 0;
}

/** The caller an in-process request acts as, when it carries one (see `PlatformRequest`). */
export function invocationPrincipalOf(request: Request): KeyPrincipal | undefined {
  return request instanceof PlatformRequest ? request.principal : undefined;
}

const EngineSchema = z.enum(ENGINES);
const KeySchema = z.string().min(1).max(512);
/** `ctx.engines.<engine>.get/set/delete/list` as the guest sends them (`functions serve` checks them the same way). */
export const ENGINE_OPS = {
  "engines.get": z.object({ engine: EngineSchema, key: KeySchema }).strict(),
  "engines.set": z.object({ engine: EngineSchema, key: KeySchema, value: z.unknown() }).strict(),
  "engines.delete": z.object({ engine: EngineSchema, key: KeySchema }).strict(),
  "engines.list": z
    .object({
      engine: EngineSchema,
      prefix: z.string().max(512).optional(),
      cursor: z.string().max(1024).nullable().optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    })
    .strict(),
} as const;

export function createFunctionInvoker(options: InvokerOptions): FunctionInvoker {
  const { store, box, config, pool, clock } = options;
  const resolved = new Map<string, { fn: ActiveFunction | undefined; at: number }>();
  const snapshots = new Map<string, { value: unknown; at: number }>();
  const contexts: GuestContexts = new WeakMap();
  /** Open WebSockets (and upgrades under way) by function, on this node. */
  const sockets = new Map<string, number>();

  async function lookup(orgId: string | undefined, ref: string): Promise<ActiveFunction | undefined> {
    // Anonymous callers reach public functions by id only.
    if (!orgId && !ref.startsWith("fn_")) return undefined;
    const row = await findServing(store, orgId, ref);
    if (!row || (!orgId && row.auth !== "public")) return undefined;
    return toActiveFunction(row);
  }

  async function load(fn: ActiveFunction): Promise<LoadedFunction> {
    const [deployment, secrets, files] = await Promise.all([
      selectProgram(store, fn.orgId, fn.functionId, fn.version),
      selectSealedSecrets(store, fn.orgId, fn.functionId),
      // Held beside the version's isolate, so `Deno.readFile` is a synchronous lookup.
      selectDeploymentFiles(store, fn.orgId, fn.functionId, fn.version),
    ]);
    if (!deployment) throw new AppError("not_found", `Function '${fn.name}' version ${fn.version} is gone`);
    const cached =
      deployment.cached_data && deployment.cached_data_tag === CACHE_TAG
        ? new Uint8Array(Buffer.from(deployment.cached_data, "base64"))
        : undefined;
    return {
      program: {
        code: deployment.code,
        filename: `${fn.name}@v${fn.version}.js`,
        ...(cached ? { cachedData: cached } : {}),
      },
      limits: {
        memoryLimitMb: fn.limits.memory_mb,
        cpuTimeLimitMs: fn.limits.cpu_time_ms,
        wallTimeLimitMs: fn.limits.wall_time_ms,
      },
      env: Object.fromEntries(secrets.map((row) => [row.name, box.open(row.value)])),
      files: createFunctionFileSet(files, new Date(deployment.created_at)),
    };
  }

  /** The snapshot is read synchronously by the guest, so it is loaded before the request (cached briefly). */
  async function snapshotOf(orgId: string): Promise<unknown> {
    const cached = snapshots.get(orgId);
    const now = clock.now().getTime();
    if (cached && now - cached.at < SNAPSHOT_TTL_MS) return cached.value;
    const value = (await options.latestSnapshot(orgId)) ?? null;
    snapshots.set(orgId, { value, at: now });
    return value;
  }

  return {
    async resolve(orgId, ref) {
      const id = `${orgId ?? "*"}\u0000${ref}`;
      const hit = resolved.get(id);
      const now = clock.now().getTime();
      if (hit && now - hit.at < RESOLVE_TTL_MS) return hit.fn;
      const fn = await lookup(orgId, ref);
      resolved.set(id, { fn, at: now });
      if (resolved.size > 10_000) resolved.delete(resolved.keys().next().value!);
      return fn;
    },

    invoke(fn, request) {
      return answer(fn, request, undefined);
    },

    async upgrade(fn, request, handshake) {
      const open = sockets.get(fn.functionId) ?? 0;
      if (open >= config.wsMaxConnections) {
        throw new AppError(
          "rate_limited",
          `This function has ${open} open WebSockets on this server, its limit (TESSERA_FUNCTION_WS_MAX_CONNECTIONS)`,
          { headers: { "Retry-After": "1" } },
        );
      }
      sockets.set(fn.functionId, open + 1);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const left = (sockets.get(fn.functionId) ?? 1) - 1;
        if (left > 0) sockets.set(fn.functionId, left);
        else sockets.delete(fn.functionId);
      };
      const upgrade = { handshake, release, accepted: false };
      try {
        const response = await answer(fn, request, upgrade);
        // Not accepted (the function answered otherwise): nothing stays open.
        if (!upgrade.accepted) release();
        return response;
      } catch (error) {
        release();
        throw error;
      }
    },

    forgetSnapshot(orgId) {
      snapshots.delete(orgId);
    },

    forget(orgId, functionId) {
      resolved.clear();
      pool.retire(orgId, functionId);
    },

    forgetLookups(orgId) {
      if (orgId === undefined) return resolved.clear();
      // Anonymous lookups (`*`) find public functions of any organization.
      for (const id of resolved.keys()) {
        if (id.startsWith(`${orgId}\u0000`) || id.startsWith("*\u0000")) resolved.delete(id);
      }
    },
  };

  /** One request through the function's isolate, its answer as the API writes it. */
  async function answer(
    fn: ActiveFunction,
    request: IncomingInvocation,
    upgrade: PendingUpgrade | undefined,
  ): Promise<FunctionResponse> {
    const snapshot = await snapshotOf(fn.orgId);
    const io = upgrade
      ? new UpgradeScope(options, fn, request, snapshot, upgrade)
      : new InvocationScope(options, fn, request, snapshot);
    const key = { orgId: fn.orgId, functionId: fn.functionId, version: fn.version, revision: fn.revision };
    let response;
    try {
      response = await pool.invoke(key, () => load(fn), toGuestRequest(contexts, fn, request), io);
    } catch (error) {
      io.log("error", isAppError(error) ? `${error.code}: ${error.message}` : "function_failed");
      void io.flush();
      throw error;
    }
    void response.finished.then(() => io.flush());
    const headers = response.headers.filter(endToEnd);
    const bodiless =
      request.method === "HEAD" ||
      response.status === 204 ||
      response.status === 205 ||
      response.status === 304;
    let body = response.body;
    if (typeof body === "string" || body instanceof Uint8Array) {
      const size = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
      if (size > config.maxResponseBytes) {
        // The caller sent nothing too large: the function failed (500), the limit is named.
        io.log("error", `function_failed: the response body exceeded ${config.maxResponseBytes} bytes`);
        throw new AppError(
          "function_failed",
          `The function's response body exceeds ${config.maxResponseBytes} bytes (TESSERA_FUNCTION_MAX_RESPONSE_BYTES)`,
        );
      }
    } else if (body && bodiless) {
      // Nobody will read it: the guest's stream is cancelled rather than left to the wall-time limit.
      void body.cancel().catch(() => {});
    } else if (body) body = limitBody(body, config.maxResponseBytes, (level, line) => io.log(level, line));
    return {
      status: response.status,
      statusText: response.statusText ?? "",
      headers,
      body: bodiless ? null : body,
    };
  }
}

/** An upgrade under way: the API's handshake, and the release of its place among the function's sockets. */
interface PendingUpgrade {
  handshake: UpgradeHandshake;
  release: () => void;
  accepted: boolean;
}

/**
 * What one invocation may reach (`InvocationIO`): its console lines (kept, then saved when
 * it finishes), outbound and platform fetch (counted against the subrequest limit), engine
 * state and the snapshot. One object per invocation, its behaviour on the prototype.
 */
class InvocationScope implements InvocationIO {
  #lines: Array<{ level: FunctionLogLevel; message: string }> = [];
  #dropped = 0;
  #subrequests = 0;
  // Made on first use: an AbortSignal costs more than the rest of a trivial invocation.
  #deadline: AbortSignal | undefined;

  constructor(
    readonly options: InvokerOptions,
    readonly fn: ActiveFunction,
    readonly request: IncomingInvocation,
    readonly snapshotValue: unknown,
  ) {}

  fetch(outbound: OutboundRequest, via: "network" | "platform"): Promise<OutboundResponse> {
    const { config } = this.options;
    if (++this.#subrequests > config.maxSubrequests) {
      return Promise.reject(
        new AppError("invalid_request", `fetch: at most ${config.maxSubrequests} subrequests per invocation`),
      );
    }
    if (via === "platform")
      return platformFetch(outbound, this.request, this.options, config.maxResponseBytes);
    this.#deadline ??= AbortSignal.timeout(this.fn.limits.wall_time_ms);
    return this.options.outbound(outbound, this.#deadline);
  }

  call(op: string, args: unknown): Promise<unknown> {
    return callOp(op, args, this.fn.orgId, this.options.engineState);
  }

  snapshot(): unknown {
    return this.snapshotValue;
  }

  log(level: FunctionLogLevel, message: string): void {
    if (this.#lines.length >= MAX_LOG_LINES) return void this.#dropped++;
    this.#lines.push({
      level,
      message: message.length > MAX_LOG_LINE_CHARS ? `${message.slice(0, MAX_LOG_LINE_CHARS)}…` : message,
    });
  }

  /** Saves the kept lines (once the invocation is over). */
  flush(): Promise<void> {
    return flushLogs(this.options, this.fn, this.request.requestId, this.#lines, this.#dropped);
  }

  /** `new WebSocket(url)`: a subrequest, through the outbound address guard; closed when the request ends. */
  connect(url: string, protocols: string[], events: SocketEvents): HostSocket {
    const { config } = this.options;
    if (++this.#subrequests > config.maxSubrequests) {
      throw new AppError(
        "invalid_request",
        `WebSocket: at most ${config.maxSubrequests} subrequests per invocation (fetch and WebSocket)`,
      );
    }
    const connect = this.options.outbound.connect;
    if (!connect) throw new AppError("invalid_request", "WebSocket: outbound connections are not available");
    return connect(url, protocols, events, this.fn.limits.wall_time_ms);
  }
}

/**
 * A request that arrived as a WebSocket upgrade (`FunctionInvoker.upgrade`): the sandbox finds
 * `upgrade` on it and completes the handshake through it when the function accepts.
 *
 * The socket's lifetime: TESSERA_FUNCTION_WS_MAX_LIFETIME_MS (1 h by default) replaces the
 * request's wall-time limit once the socket is open, as Deno Deploy lets sockets live: a
 * WebSocket is long-lived by nature, and what bounds an isolate's work on it is the CPU limit
 * of each entry. 0 keeps the wall-time limit for the socket too (Supabase's choice: the
 * worker's wall clock bounds it), for operators who want every request short.
 */
class UpgradeScope extends InvocationScope {
  readonly upgrade: SocketUpgrade;

  constructor(
    options: InvokerOptions,
    fn: ActiveFunction,
    request: IncomingInvocation,
    snapshotValue: unknown,
    pending: PendingUpgrade,
  ) {
    super(options, fn, request, snapshotValue);
    const limits = { maxMessageBytes: options.config.wsMaxMessageBytes };
    this.upgrade = {
      lifetimeMs: options.config.wsMaxLifetimeMs,
      accept(protocol, events) {
        const ws = pending.handshake.accept(protocol);
        pending.accepted = true;
        return linkSocket(ws, events, limits, pending.release);
      },
    };
  }
}

/**
 * The isolate pool's `onCachedData`: keeps the V8 code cache a first boot produced with
 * its deployment, tagged with the V8 build (a cache from another build is not used).
 */
export function createCachedDataSaver(
  store: Store,
  log: Logger,
): (key: FunctionKey, data: Uint8Array) => void {
  return (key, data) => {
    saveCachedData(store, key, { base64: Buffer.from(data).toString("base64"), tag: CACHE_TAG }).catch(
      (error: unknown) => log.warn("saving V8 code cache failed", { error }),
    );
  };
}

function toActiveFunction(row: ServingRow): ActiveFunction {
  return {
    orgId: row.org_id,
    plan: row.plan,
    functionId: row.id,
    name: row.name,
    version: row.active_version,
    auth: row.auth,
    limits: parseLimits(row.limits),
    revision: String(row.secrets_revision),
  };
}

function toGuestRequest(contexts: GuestContexts, fn: ActiveFunction, request: IncomingInvocation) {
  return {
    requestId: request.requestId,
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body,
    context: contextOf(contexts, fn, request.principal),
  };
}

type GuestContext = { user: unknown; [k: string]: unknown };
/**
 * One context object per function lookup and caller (both cached objects), so the sandbox
 * serializes it once (it keeps the text by identity) and the guest parses it once. Each
 * invoker keeps its own (its lookups are its own objects).
 */
type GuestContexts = WeakMap<
  ActiveFunction,
  { anonymous?: GuestContext; byCaller: WeakMap<KeyPrincipal, GuestContext> }
>;

function contextOf(
  contexts: GuestContexts,
  fn: ActiveFunction,
  principal: KeyPrincipal | undefined,
): GuestContext {
  let forFunction = contexts.get(fn);
  if (!forFunction) contexts.set(fn, (forFunction = { byCaller: new WeakMap() }));
  const known = principal ? forFunction.byCaller.get(principal) : forFunction.anonymous;
  if (known) return known;
  const context: GuestContext = {
    user: principal ? callerOf(principal) : null,
    function: { id: fn.functionId, name: fn.name, version: fn.version },
    organization_id: fn.orgId,
  };
  if (principal) forFunction.byCaller.set(principal, context);
  else forFunction.anonymous = context;
  return context;
}

/**
 * The caller as a function sees it (`ctx.user`): a key (its id, never its secret), a dashboard
 * user acting through a session (who, and the role's scopes; never the session's token), or an OAuth
 * app with the member it acts for (never the token).
 */
function callerOf(principal: KeyPrincipal): Record<string, unknown> {
  const where = {
    organization_id: principal.orgId,
    organization: principal.orgName,
    scopes: principal.scopes,
  };
  if (isOAuthPrincipal(principal)) {
    // An integration acting for the member who installed it (null: the app itself, client credentials).
    const { app, installationId, user } = principal.oauth;
    return { type: "oauth", app, installation_id: installationId, user, ...where };
  }
  if (principal.user) {
    const { id, email, name, role } = principal.user;
    return { type: "user", user: { id, email, name }, role, ...where };
  }
  return { type: "api_key", key_id: principal.keyId, kind: principal.kind, ...where };
}

async function callOp(op: string, args: unknown, orgId: string, state: EngineStateAccess): Promise<unknown> {
  if (!(op in ENGINE_OPS)) throw new AppError("invalid_request", `unknown operation '${op}'`);
  const parsed = ENGINE_OPS[op as keyof typeof ENGINE_OPS].safeParse(args);
  if (!parsed.success) {
    throw new AppError(
      "invalid_request",
      `${op}: ${parsed.error.issues[0]?.path.join(".") || "args"} ${parsed.error.issues[0]?.message}`,
    );
  }
  const input = parsed.data as {
    engine: string;
    key: string;
    value?: unknown;
    prefix?: string;
    cursor?: string | null;
    limit?: number;
  };
  switch (op) {
    case "engines.get":
      return (await state.get(orgId, input.engine, input.key))?.value ?? null;
    case "engines.set":
      await state.set(orgId, input.engine, input.key, input.value === undefined ? null : input.value);
      return null;
    case "engines.delete":
      return state.delete(orgId, input.engine, input.key);
    default: {
      const page = await state.list(orgId, input.engine, {
        ...(input.prefix !== undefined ? { prefix: input.prefix } : {}),
        ...(input.cursor ? { cursor: input.cursor } : {}),
        limit: input.limit ?? 100,
      });
      return { entries: page.entries.map(({ key, value }) => ({ key, value })), cursor: page.nextCursor };
    }
  }
}

/** `ctx.platform.fetch(path)`: the REST API in-process, as the caller, without a network hop. */
async function platformFetch(
  outbound: OutboundRequest,
  request: IncomingInvocation,
  options: InvokerOptions,
  maxBytes: number,
): Promise<OutboundResponse> {
  const origin = new URL(request.url).origin;
  const url = new URL(outbound.url, origin);
  if (url.origin !== origin || !url.pathname.startsWith("/v1/")) {
    throw new AppError("invalid_request", "platform.fetch takes a path of the API, such as /v1/invoices");
  }
  if (request.depth + 1 > MAX_INVOCATION_DEPTH) {
    throw new AppError(
      "invalid_request",
      `platform.fetch: functions nest at most ${MAX_INVOCATION_DEPTH} deep`,
    );
  }
  const headers = new Headers(outbound.headers);
  const forward = !headers.has("authorization");
  if (forward && request.authorization) headers.set("authorization", request.authorization);
  headers.set("x-request-id", `${request.requestId.slice(0, 100)}.${newId("sub").slice(4, 12)}`);
  const hasBody = outbound.body && outbound.method !== "GET" && outbound.method !== "HEAD";
  const apiRequest = new PlatformRequest(
    url,
    { method: outbound.method, headers, ...(hasBody ? { body: outbound.body } : {}) },
    request.depth + 1,
    forward && !request.authorization ? request.principal : undefined,
  );
  const response = await options.platformFetch(apiRequest);
  const body = new Uint8Array(await response.arrayBuffer());
  if (body.byteLength > maxBytes)
    throw new AppError("payload_too_large", `platform.fetch: response exceeds ${maxBytes} bytes`);
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
    body,
    url: url.toString(),
  };
}

/** Passes the function's body through, erroring the stream past the response size limit. */
function limitBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  log: (level: FunctionLogLevel, message: string) => void,
): ReadableStream<Uint8Array> {
  let size = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          log("error", `function_failed: the response body exceeded ${maxBytes} bytes and was cut off`);
          controller.error(new AppError("function_failed", `response body exceeds ${maxBytes} bytes`));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

async function flushLogs(
  options: InvokerOptions,
  fn: ActiveFunction,
  requestId: string,
  lines: Array<{ level: FunctionLogLevel; message: string }>,
  dropped: number,
): Promise<void> {
  if (dropped > 0)
    lines.push({
      level: "warn",
      message: `${dropped} more lines were dropped (at most ${MAX_LOG_LINES} per invocation)`,
    });
  if (lines.length === 0) return;
  const { orgId, functionId, version } = fn;
  const now = options.clock.now();
  try {
    await insertLogLines(options.store, { orgId, functionId, version, requestId, now, lines });
  } catch (error) {
    options.log.warn("saving function logs failed", {
      error,
      function_id: fn.functionId,
      request_id: requestId,
    });
  }
}
