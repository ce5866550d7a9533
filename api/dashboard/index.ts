import { Hono } from "hono";
import { html } from "hono/html";
import type { ApiDeps, AppEnv } from "../env.ts";
import { accountRoutes } from "./accounts.ts";
import { apiKeyRoutes } from "./api-keys.ts";
import { APP_CSS, CLIENT_SCRIPTS } from "./assets.ts";
import { CSP, page } from "./layout.ts";
import { dataRoutes } from "./data/index.ts";
import { eventRoutes } from "./events.ts";
import { functionRoutes } from "./functions/index.ts";
import { integrationRoutes } from "./integrations.ts";
import { memberRoutes } from "./members.ts";
import { organizationRoutes } from "./organization.ts";
import { webhookRoutes } from "./webhooks/index.ts";
import { createParts } from "./parts.ts";
import { noStore } from "./session.ts";
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

/**
 * The dashboard, served at `/` by the same process: accounts (setup, invitations, resets, sign-in),
 * the overview, the SYNC panel, Settings → API Keys, Members and Sessions. Pages are rendered on
 * the server (layout.ts); every state-changing form carries the session's CSRF token (parts.ts).
 */
export function dashboardRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Mounted at `/` beside `/v1`: its headers go on its own paths only.
  for (const path of PAGES) {
    app.use(path, noStore());
    app.use(path, async (c, next) => {
      await next();
      c.header("Content-Security-Policy", CSP);
    });
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
  const { signedIn, nav } = parts;
  accountRoutes(app, parts);
  app.get("/", async (c) => {
    const signed = await signedIn(c);
    if (signed instanceof Response) return signed;
    const { session } = signed;
    return c.html(
      page(
        "Overview",
        nav(signed, "/"),
        html`<h1>${session.orgName}</h1>
          <p>
            Signed in as <strong>${session.user.name}</strong> (${session.user.email}), ${session.role} of
            this organization.
          </p>
          <section class="card">
            <h2>Get started</h2>
            <p>
              <a href="/settings/api-keys">Create an API key</a> for your integrations, then call the REST
              API; the reference is at <a href="/docs">/docs</a>.
            </p>
          </section>`,
      ),
    );
  });
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
  return app;
}
