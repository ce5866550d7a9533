import { Hono, type MiddlewareHandler } from "hono";
import { html } from "hono/html";
import type { ApiDeps, AppEnv, BrowserFace } from "../api/env.ts";
import type { DashboardDeps } from "./env.ts";
import { oauthRoutes } from "./oauth/index.ts";
import { accountRoutes } from "./accounts.ts";
import { apiKeyRoutes } from "./api-keys.ts";
import { auditLogRoutes } from "./audit-log.ts";
import { APP_CSS, CLIENT_SCRIPTS } from "./assets.ts";
import { CSP, page } from "./layout.ts";
import { dataRoutes } from "./data/index.ts";
import { eventRoutes } from "./events.ts";
import { functionRoutes } from "./functions/index.ts";
import { integrationRoutes } from "./integrations.ts";
import { memberRoutes } from "./members.ts";
import { organizationRoutes } from "./organization.ts";
import { overviewRoutes } from "./overview.ts";
import { webhookRoutes } from "./webhooks/index.ts";
import { formGuard } from "./guard.ts";
import { createParts } from "./parts.ts";
import { pageHeaders, sessionPrincipal } from "./session.ts";
import { syncPanelRoutes } from "./sync-panel.ts";

/** The dashboard's paths (everything else under `/` is the API's). */
const PAGES = [
  "/",
  "/setup/*",
  "/invite/*",
  "/reset/*",
  "/sign-in",
  "/sign-out",
  "/settings",
  "/settings/*",
  "/data",
  "/data/*",
  "/webhooks",
  "/webhooks/*",
  "/functions",
  "/functions/*",
  "/events",
  "/events/*",
  "/dashboard/*",
  "/sync",
  "/sync/*",
];

/** The deploy forms: a function's files, read under the upload limit. */
const UPLOADS = /^\/functions\/(?:new|[^/]+\/deploy)$/;

/**
 * A page's error as a page: the app's error handler answers problem+json (what /v1 callers read);
 * a person in a browser gets the same status, title and detail as HTML, with the request id to
 * quote. Hono hands the handled error to the middleware as `c.error`.
 */
function problemsAsPages(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (!c.error || !c.res.headers.get("content-type")?.startsWith("application/problem+json")) return;
    const problem = (await c.res.clone().json()) as { title?: string; detail?: string; request_id?: string };
    const headers = new Headers(c.res.headers);
    headers.set("content-type", "text/html; charset=utf-8");
    headers.delete("content-length");
    const body = await page(
      problem.title ?? "Error",
      {},
      html`<h1>${problem.title ?? "Error"}</h1>
        <p>${problem.detail ?? ""}</p>
        <p class="muted">Request id: <code>${problem.request_id ?? "none"}</code></p>
        <p><a href="/">Back to the overview</a></p>`,
    );
    c.res = new Response(body.toString(), { status: c.res.status, headers });
  };
}

/**
 * The dashboard, served at `/` by the same process: accounts (setup, invitations, resets, sign-in),
 * the overview, the SYNC panel, Settings → API Keys, Members and Sessions. Pages are rendered on
 * the server (layout.ts); every state change passes `formGuard` (origin, body limit, CSRF token).
 */
/**
 * The browser's face as createApi mounts it (api/env.ts, `BrowserFace`): the OAuth pages and the
 * dashboard, and the dashboard session as a caller of `/v1`.
 */
export function createBrowserFace(deps: DashboardDeps): BrowserFace {
  const routes = new Hono<AppEnv>();
  // Before the dashboard: the consent pages under /oauth are its look but the server's paths.
  routes.route("/", oauthRoutes(deps));
  routes.route("/", dashboardRoutes(deps));
  return { routes, sessionPrincipal: (c) => sessionPrincipal(c, deps) };
}

export function dashboardRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const guard = formGuard(deps, { uploads: UPLOADS });
  // Mounted at `/` beside `/v1`: its headers go on its own paths only.
  for (const path of PAGES) {
    app.use(path, pageHeaders());
    app.use(path, async (c, next) => {
      await next();
      c.header("Content-Security-Policy", CSP);
    });
    app.use(path, problemsAsPages());
    // Every state change: this origin, a bounded body, a CSRF token (guard.ts).
    app.use(path, guard);
  }
  app.get("/dashboard/assets/app.css", (c) => {
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(APP_CSS);
  });
  app.get("/dashboard/assets/:name{[a-z0-9-]+\\.js}", (c) => {
    const script = CLIENT_SCRIPTS.get(c.req.param("name"));
    if (script === undefined) return c.notFound();
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(script);
  });
  const parts = createParts(deps);
  accountRoutes(app, parts);
  overviewRoutes(app, parts);
  app.get("/settings", (c) => c.redirect("/settings/api-keys", 303));
  syncPanelRoutes(app, parts);
  apiKeyRoutes(app, parts);
  memberRoutes(app, parts);
  organizationRoutes(app, parts);
  dataRoutes(app, parts);
  webhookRoutes(app, parts);
  functionRoutes(app, parts);
  eventRoutes(app, parts);
  integrationRoutes(app, parts);
  auditLogRoutes(app, parts);
  return app;
}
