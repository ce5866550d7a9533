import {
  AppError,
  HOP_BY_HOP_HEADERS,
  isAppError,
  tracer,
  withinSpan,
  type Logger,
  type SecretBox,
  type TraceSpan,
} from "../core/index.ts";
import { isOAuthPrincipal, type KeyPrincipal } from "../engines/index.ts";
import {
  createFunctionFileSet,
  type FunctionKey,
  type IsolatePool,
  type LoadedFunction,
} from "../sandbox/index.ts";
import type { Store } from "../store/index.ts";
import { selectSealedSecrets } from "./function-queries.ts";
import { parseLimits } from "./function-rows.ts";
import type { FunctionLogLevel } from "./function-schemas.ts";
import {
  InvocationScope,
  UpgradeScope,
  type ActiveFunction,
  type FunctionResponse,
  type IncomingInvocation,
  type ScopeDeps,
  type PendingUpgrade,
} from "./invocation-scope.ts";
import {
  findServing,
  saveCachedData,
  selectDeploymentFiles,
  selectProgram,
  type ServingRow,
} from "./invoke-queries.ts";
import type { UpgradeHandshake } from "./websocket.ts";

export interface InvokerOptions extends ScopeDeps {
  box: SecretBox;
  pool: IsolatePool;
  /** The organization's latest intelligence snapshot, or null before the first. */
  latestSnapshot: (orgId: string) => Promise<unknown>;
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

const RESOLVE_TTL_MS = 1_000;
/** How long a node may serve an organization's snapshot before reading the latest again. */
const SNAPSHOT_TTL_MS = 10_000;
/** V8 code cache is only valid for the V8 build that produced it. */
const CACHE_TAG = `v8/${process.versions.v8}`;
/**
 * What of a function's response headers the host keeps: not hop-by-hop ones, nor the length it
 * frames itself. Usually all of them, so the list is copied only when one must go.
 */
function endToEnd(headers: Array<[string, string]>): Array<[string, string]> {
  for (let i = 0; i < headers.length; i++) {
    if (!isEndToEnd(headers[i]![0])) return headers.filter((pair) => isEndToEnd(pair[0]));
  }
  return headers;
}

function isEndToEnd(name: string): boolean {
  const lower = name.toLowerCase();
  return !HOP_BY_HOP_HEADERS.has(lower) && lower !== "content-length";
}

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
    const now = clock.nowMs();
    if (cached && now - cached.at < SNAPSHOT_TTL_MS) return cached.value;
    const value = (await options.latestSnapshot(orgId)) ?? null;
    snapshots.set(orgId, { value, at: now });
    return value;
  }

  return {
    async resolve(orgId, ref) {
      const id = `${orgId ?? "*"}\u0000${ref}`;
      const hit = resolved.get(id);
      const now = clock.nowMs();
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
    const span = tracer() && startInvocationSpan(fn, request, io);
    const boot = () => {
      span?.set({ "faas.coldstart": true });
      return load(fn);
    };
    let response;
    try {
      const guest = toGuestRequest(contexts, fn, request);
      response = await (span
        ? withinSpan(span, () => pool.invoke(key, boot, guest, io))
        : pool.invoke(key, boot, guest, io));
    } catch (error) {
      io.log("error", isAppError(error) ? `${error.code}: ${error.message}` : "function_failed");
      void io.flush();
      span?.fail(error);
      span?.end();
      throw error;
    }
    void response.finished.then(() => io.flush());
    if (span) endInvocationSpan(span, response);
    const headers = endToEnd(response.headers);
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

/**
 * The span of one invocation in its isolate (tracing on), a child of the request's: the function,
 * its version, whether its isolate booted for it (`faas.coldstart`) and the status it answered.
 * Its scope's outbound `fetch` and engine state calls are its children (invocation-scope.ts). It
 * ends when the invocation does (body sent, `waitUntil` settled), not at the response's head.
 */
function startInvocationSpan(fn: ActiveFunction, request: IncomingInvocation, io: InvocationScope) {
  const span = tracer()?.start("function.invoke", {
    attributes: {
      "tessera.organization_id": fn.orgId,
      "tessera.function.id": fn.functionId,
      "tessera.function.name": fn.name,
      "tessera.function.version": fn.version,
      "tessera.request_id": request.requestId,
      "faas.coldstart": false,
    },
  });
  io.span = span;
  return span;
}

function endInvocationSpan(span: TraceSpan, response: { status: number; finished: Promise<void> }): void {
  span.set({ "http.response.status_code": response.status });
  if (response.status >= 500) span.fail(String(response.status));
  void response.finished.then(() => span.end());
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
