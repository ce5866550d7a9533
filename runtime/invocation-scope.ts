import { z } from "zod";
import {
  AppError,
  newId,
  withinSpan,
  type Clock,
  type FunctionConfig,
  type FunctionLimits,
  type Logger,
  type Plan,
  type TraceSpan,
} from "../core/index.ts";
import { ENGINES, type KeyPrincipal } from "../engines/index.ts";
import type {
  HostSocket,
  InvocationIO,
  OutboundRequest,
  OutboundResponse,
  SocketEvents,
  SocketUpgrade,
} from "../sandbox/index.ts";
import type { Store } from "../store/index.ts";
import type { FunctionAuth, FunctionLogLevel } from "./function-schemas.ts";
import { insertLogLines } from "./log-queries.ts";
import { tracedFetch, type OutboundFetch } from "./outbound.ts";
import { linkSocket, type UpgradeHandshake } from "./websocket.ts";

/**
 * One invocation: what is invoked and with what (`ActiveFunction`, `IncomingInvocation`), what
 * comes back (`FunctionResponse`), and what the function may reach while it runs (the scope the
 * sandbox is handed: console lines, outbound and platform fetch, engine state, the snapshot,
 * WebSockets). The invoker (invoke.ts) finds the function, boots its isolate and makes one scope
 * per request.
 */

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

/** What a scope reaches beyond the request: the invoker's own options, less the pool and the secrets. */
export interface ScopeDeps {
  store: Store;
  clock: Clock;
  config: FunctionConfig;
  log: Logger;
  outbound: OutboundFetch;
  engineState: EngineStateAccess;
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

/** Nested invocations allowed (function → API → function …). */
export const MAX_INVOCATION_DEPTH = 3;
const MAX_LOG_LINES = 1_000;
const MAX_LOG_LINE_CHARS = 8_192;

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

/** An upgrade under way: the API's handshake, and the release of its place among the function's sockets. */
export interface PendingUpgrade {
  handshake: UpgradeHandshake;
  release: () => void;
  accepted: boolean;
}

/**
 * What one invocation may reach (`InvocationIO`): its console lines (kept, then saved when
 * it finishes), outbound and platform fetch (counted against the subrequest limit), engine
 * state and the snapshot. One object per invocation, its behaviour on the prototype.
 */
export class InvocationScope implements InvocationIO {
  #lines: Array<{ level: FunctionLogLevel; message: string }> = [];
  #dropped = 0;
  #subrequests = 0;
  // Made on first use: an AbortSignal costs more than the rest of a trivial invocation.
  #deadline: AbortSignal | undefined;
  /** The invocation's span while tracing is on (invoke.ts): its outbound calls are its children. */
  span: TraceSpan | undefined = undefined;

  constructor(
    readonly options: ScopeDeps,
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
      return platformFetch(outbound, this.request, this.options, config.maxResponseBytes, this.span);
    this.#deadline ??= AbortSignal.timeout(this.fn.limits.wall_time_ms);
    if (this.span) return tracedFetch(this.span, outbound, this.#deadline, this.options.outbound);
    return this.options.outbound(outbound, this.#deadline);
  }

  call(op: string, args: unknown): Promise<unknown> {
    // Within the invocation's span: the engine state's store queries are its children.
    const { span } = this;
    if (span === undefined) return callOp(op, args, this.fn.orgId, this.options.engineState);
    return withinSpan(span, () => callOp(op, args, this.fn.orgId, this.options.engineState));
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
export class UpgradeScope extends InvocationScope {
  readonly upgrade: SocketUpgrade;

  constructor(
    options: ScopeDeps,
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

/**
 * `ctx.platform.fetch(path)`: the REST API in-process, as the caller, without a network hop. While
 * tracing is on it carries the invocation's `traceparent`, so the API request's span is its child.
 */
async function platformFetch(
  outbound: OutboundRequest,
  request: IncomingInvocation,
  options: ScopeDeps,
  maxBytes: number,
  span: TraceSpan | undefined,
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
  if (span) headers.set("traceparent", span.traceparent);
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

async function flushLogs(
  options: ScopeDeps,
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
