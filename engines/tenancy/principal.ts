import type { Plan } from "../../core/index.ts";
import type { KeyKind } from "./scopes.ts";

/**
 * Who is calling, as authentication found it: a live API key, an OAuth access token, or a dashboard
 * session. Its own file, below both the keys (api-keys.ts) and the grant rule (grants.ts), which
 * each need it.
 */
export interface KeyPrincipal {
  keyId: string;
  orgId: string;
  orgName: string;
  plan: Plan;
  scopes: string[];
  kind: KeyKind;
  /**
   * Set when a dashboard user's session authenticated the request (dashboard/session.ts):
   * `keyId` is then the session's id, and the scopes are the role's.
   */
  user?: { id: string; email: string; name: string; role: string };
}
