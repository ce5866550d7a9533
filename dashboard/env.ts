import type { ApiDeps } from "../api/env.ts";
import type { OAuthServer } from "./oauth/server.ts";

/**
 * What the dashboard is built from: the API's services, and the OAuth 2.0 authorization server
 * (dashboard/oauth/: apps' codes, tokens and consent), whose sign-in and consent pages are the
 * dashboard's. Built once by the composition root (`createServices` in services.ts).
 */
export interface DashboardDeps extends ApiDeps {
  oauth: OAuthServer;
}
