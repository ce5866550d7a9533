import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { ApiDeps, AppEnv, BrowserFace } from "./env.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tracer, withinSpan, type FunctionsOrigin } from "../core/index.ts";
import {
  createNodeInvocation,
  createNodeUpgrade,
  fetchInvocation,
  INVOKE_ROUTE,
  INVOKE_SUBPATH_ROUTE,
  isInvocationPath,
  type NodeUpgrade,
} from "./invocation/index.ts";
import type { HostServed } from "./server.ts";
import { docsRoutes } from "./docs/index.ts";
import { jsonLines } from "./json-lines.ts";
import {
  authenticate,
  createAuthenticator,
  rateLimitHeaders,
  type Authenticator,
} from "./middleware/auth.ts";
import { recordRequest, startRequestSpan } from "./observe.ts";
import { idempotency } from "./middleware/idempotency.ts";
import { jsonBody } from "./middleware/json-body.ts";
import { noStore } from "./middleware/no-store.ts";
import { requestId } from "./middleware/request-id.ts";
import { createAllowedMethods, notFoundOrNotAllowed } from "./method-not-allowed.ts";
import { asAppError, problemResponse, requestIdOf } from "./problem.ts";
import { oauthAppRoutes, oauthInstallationRoutes } from "./routes/oauth-apps.ts";
import { adminRoutes } from "./routes/admin.ts";
import { auditEventRoutes } from "./routes/audit-events.ts";
import { engineStateRoutes } from "./routes/engine-state.ts";
import { eventRoutes, eventTypeRoutes } from "./routes/events.ts";
import { healthRoutes, metricsRoutes } from "./routes/health.ts";
import { intelligenceRoutes } from "./routes/intelligence.ts";
import { apiKeyRoutes, meRoutes } from "./routes/credentials.ts";
import { resourceRoutes } from "./routes/resources.ts";
import { webhookEndpointRoutes } from "./routes/webhook-endpoints.ts";
import { functionRoutes } from "./routes/functions.ts";
import { syncRoutes } from "./routes/sync.ts";
import { webhookDeliveryRoutes } from "./routes/webhook-deliveries.ts";

/** The API role's HTTP face: the app, and the socket adapter of the invocation path. */
export interface Api {
  app: OpenAPIHono<AppEnv>;
  /** Serves function invocations straight off Node's request (api/invocation/node.ts). */
  invocation: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Serves WebSocket upgrades of function invocations (api/invocation/upgrade.ts). */
  upgrade: NodeUpgrade;
  /**
   * The functions origin (TESSERA_FUNCTIONS_URL), when configured: invocations and health probes
   * only. `listen` gives it the requests for its host; `serve` gives it its own port too (main.ts).
   */
  functionsOrigin: HostServed | undefined;
}

/**
 * The HTTP application over the process's services (built once by `createServices`). Order
 * matters: request id → metrics → JSON body (size, type) → authentication and rate limit →
 * idempotency → the routes. Invocations skip the middle three: the invocation path
 * (api/invocation/) reads its own body and authenticates its own caller. The one error
 * handler at the bottom renders every AppError as problem+json.
 */
export function createApi(deps: ApiDeps, browser: BrowserFace): Api {
  const app = new OpenAPIHono<AppEnv>();
  const authenticator = createAuthenticator(deps);
  const invocationDeps = { ...deps, authenticate: authenticator };

  app.use("*", requestId());
  app.use("*", observeRequests(deps));
  app.use("*", jsonLines());

  app.route("/", healthRoutes(deps));
  app.use("/admin/v1/*", noStore());
  app.route("/admin/v1", adminRoutes(deps));
  app.route("/", browser.routes);

  // A function's request body is its own (any type, its own limit); a deploy's files may be large.
  const invocation = (c: Context<AppEnv>) => isInvocationPath(c.req.path);
  const deployment = (c: Context<AppEnv>) => c.req.path === "/v1/functions" && c.req.method === "POST";
  app.use("/v1/*", rateLimitHeaders());
  app.use("/v1/*", unless(invocation, noStore()));
  app.use(
    "/v1/*",
    unless(
      invocation,
      choose(deployment, jsonBody(deps.config.functions.maxUploadBytes), jsonBody(deps.config.maxBodyBytes)),
    ),
  );
  const anonymous = (c: Context<AppEnv>) => c.req.path === "/v1/openapi.json" || invocation(c);
  app.use(
    "/v1/*",
    unless(
      anonymous,
      authenticate(authenticator, (c) => browser.sessionPrincipal(c)),
    ),
  );
  app.use("/v1/*", unless(invocation, idempotency(deps)));

  app.route("/v1/me", meRoutes(deps));
  app.route("/v1/api_keys", apiKeyRoutes(deps));
  app.route("/v1/oauth_apps", oauthAppRoutes(deps));
  app.route("/v1/oauth_installations", oauthInstallationRoutes(deps));
  app.route("/v1/events", eventRoutes(deps, deps.catalog));
  app.route("/v1/event_types", eventTypeRoutes(deps.catalog));
  app.route("/v1/audit_events", auditEventRoutes(deps));
  app.route("/v1/webhook_endpoints", webhookEndpointRoutes(deps.webhookEndpoints));
  app.route("/v1", webhookDeliveryRoutes(deps.webhookDeliveries));
  app.route("/v1/engines", engineStateRoutes(deps.engineState));
  const invoke = fetchInvocation(invocationDeps);
  app.all("/v1/functions/:id/invoke", invoke);
  app.all("/v1/functions/:id/invoke/*", invoke);
  app.route("/v1/functions", functionRoutes(deps.functions, deps));
  // A refresh in this process reaches ctx.snapshot at once (other nodes within the invoker's cache time).
  app.route(
    "/v1/intelligence/snapshots",
    intelligenceRoutes(deps, (orgId) => deps.invoker.forgetSnapshot(orgId)),
  );
  app.route("/v1/sync", syncRoutes(deps.sync, deps.log));
  for (const service of deps.resources.values()) {
    app.route(`/v1/${service.definition.name}`, resourceRoutes(service));
  }

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key (sk_live_…) or an OAuth access token",
  });
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Tessera API",
      version: "1.0.0",
      description: "Business data (finance, growth, talent) of one organization per credential.",
    },
    servers: [{ url: "/" }],
  });
  app.route("/docs", docsRoutes());

  const allowedMethods = createAllowedMethods(() => app.routes);
  app.notFound((c) => {
    const id = requestIdOf(c);
    return withRequestId(problemResponse(notFoundOrNotAllowed(c, allowedMethods(c.req.path)), id), id);
  });
  app.onError((error, c) => renderError(error, c, deps));
  const { functionsOrigin } = deps.config;
  return {
    app,
    invocation: createNodeInvocation(invocationDeps),
    upgrade: createNodeUpgrade(invocationDeps),
    functionsOrigin: functionsOrigin && createFunctionsOrigin(deps, authenticator, functionsOrigin),
  };
}

/**
 * The functions origin's face: function invocations (their WebSockets too) and the health probes;
 * everything else is 404 there, the dashboard, `/v1` and `/docs` included. A function's answer
 * goes as it sent it, but for the platform's cookies (invocation/headers.ts): no page of the
 * dashboard lives on this origin for it to reach.
 */
function createFunctionsOrigin(
  deps: ApiDeps,
  authenticator: Authenticator,
  origin: FunctionsOrigin,
): HostServed {
  const served = { ...deps, authenticate: authenticator, origin: "functions" as const };
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", observeRequests(deps));
  // A load balancer probes this origin too; metrics stay on the main origin.
  app.all("/metrics", (c) => c.notFound());
  app.route("/", healthRoutes(deps));
  app.use("/v1/*", rateLimitHeaders());
  const invoke = fetchInvocation(served);
  app.all(INVOKE_ROUTE, invoke);
  app.all(INVOKE_SUBPATH_ROUTE, invoke);
  app.notFound((c) => {
    const id = requestIdOf(c);
    return withRequestId(problemResponse(notFoundOrNotAllowed(c, []), id), id);
  });
  app.onError((error, c) => renderError(error, c, deps));
  return {
    app,
    invocation: createNodeInvocation(served),
    upgrade: createNodeUpgrade(served),
    serves: (host) => host !== undefined && isHost(host, origin),
  };
}

/** Whether a request's `Host` names the origin (without case; its default port written out or not). */
function isHost(host: string, origin: FunctionsOrigin): boolean {
  const lower = host.toLowerCase();
  if (lower === origin.host) return true;
  const port = origin.url.startsWith("https:") ? ":443" : ":80";
  return lower.endsWith(port) && lower.slice(0, -port.length) === origin.host;
}

/** The worker role's HTTP face: health probes and metrics only (metrics unless on a listener of their own). */
export function createHealthApp(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", observeRequests(deps));
  app.route("/", healthRoutes(deps));
  return app;
}

/**
 * `/metrics` alone, for its own listener (TESSERA_METRICS_PORT, main.ts); anything else is a 404.
 * Not counted in the request metrics: a scrape would count itself.
 */
export function createMetricsApp(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.route("/", metricsRoutes(deps));
  app.notFound((c) => {
    const id = requestIdOf(c);
    return withRequestId(problemResponse(notFoundOrNotAllowed(c, []), id), id);
  });
  app.onError((error, c) => renderError(error, c, deps));
  return app;
}

/**
 * Counts and times every request by route pattern (bounded label values) and logs it; while
 * tracing is on, the request is a span and what it does runs within it (api/observe.ts).
 */
function observeRequests(deps: ApiDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const span = tracer() && startRequestSpan(c.req.method, c.req.path, c.req.header("traceparent"));
    await (span ? withinSpan(span, next) : next());
    const route = routePath(c);
    recordRequest(
      deps,
      {
        requestId: c.get("requestId"),
        method: c.req.method,
        route: c.res.status === 404 && route === "/*" ? "unmatched" : route,
        status: c.res.status,
        seconds: (performance.now() - started) / 1000,
        org: c.get("principal")?.orgId,
      },
      span,
    );
  };
}

/** Runs `middleware` except for requests `skip` picks out. */
function unless(
  skip: (c: Context<AppEnv>) => boolean,
  middleware: MiddlewareHandler<AppEnv>,
): MiddlewareHandler<AppEnv> {
  return (c, next) => (skip(c) ? next() : middleware(c, next));
}

function choose(
  test: (c: Context<AppEnv>) => boolean,
  yes: MiddlewareHandler<AppEnv>,
  no: MiddlewareHandler<AppEnv>,
): MiddlewareHandler<AppEnv> {
  return (c, next) => (test(c) ? yes(c, next) : no(c, next));
}

function renderError(error: unknown, c: Context<AppEnv>, deps: ApiDeps): Response {
  const id = requestIdOf(c);
  return withRequestId(problemResponse(asAppError(error, id, deps.log), id), id);
}

function withRequestId(response: Response, id: string): Response {
  response.headers.set("X-Request-Id", id);
  return response;
}
