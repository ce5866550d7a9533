import type { ApiDeps, AppEnv } from "../api/env.ts";
import type { SessionPrincipal } from "../engines/index.ts";
import type { OAuthServer } from "./oauth/server.ts";

/**
 * What the dashboard is built from: the API's services, and the OAuth 2.0 authorization server
 * (dashboard/oauth/: apps' codes, tokens and consent), whose sign-in and consent pages are the
 * dashboard's. Built once by the composition root (`createServices` in services.ts).
 */
export interface DashboardDeps extends ApiDeps {
  oauth: OAuthServer;
}

/** A signed-in user of the dashboard, and the CSRF token its pages embed. */
export type Signed = { session: SessionPrincipal; csrf: string };
/** A posted form's fields (a repeated field as a list). */
export type Form = Record<string, string | string[]>;

/** A route behind `parts.signedIn` (gates.ts): the user is `c.var.signed`. */
export interface DashboardEnv {
  Variables: AppEnv["Variables"] & { signed: Signed };
}
/** A route behind `parts.posted` (gates.ts): the user is `c.var.signed`, the form's fields `c.var.form`. */
export interface PostedEnv {
  Variables: DashboardEnv["Variables"] & { form: Form };
}
