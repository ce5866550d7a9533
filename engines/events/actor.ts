import { z } from "zod";
import { isOAuthPrincipal } from "../oauth/principal.ts";
import type { Grantor } from "../tenancy/grants.ts";

/**
 * Who did a management action, as its event records it (`actor`, docs/audit-log.md): a dashboard
 * user, an API key, an OAuth app (its access token, acting for a member or itself), or the operator's
 * CLI (the data dir's admin token, `tessera` commands, the first start). An id, never a secret.
 */
export const ACTOR_TYPES = ["user", "api_key", "oauth_app", "cli"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const ActorSchema = z
  .object({
    type: z.enum(ACTOR_TYPES),
    id: z.string().meta({
      description: "The user (`usr_…`), the API key (`key_…`), the OAuth app (`oapp_…`), or `operator`",
    }),
  })
  .meta({ id: "Actor" });
export type Actor = z.infer<typeof ActorSchema>;

/** The operator: whoever holds the data dir (the CLI, `/admin/v1`, the first start). */
export const OPERATOR_ACTOR: Actor = Object.freeze({ type: "cli", id: "operator" });

/**
 * The actor of a request's credential, the one place it is decided: a session is its user (not the
 * session, which ends), an OAuth token its app, an API key itself, the operator the CLI, and a member
 * consenting where no session stands for it (`MemberGrantor`) that member.
 *
 * @example
 *   actorOf(c.var.principal) // { type: "api_key", id: "key_3kTqZ9" }
 */
export function actorOf(grantor: Grantor): Actor {
  if ("type" in grantor) {
    return grantor.type === "operator" ? OPERATOR_ACTOR : { type: "user", id: grantor.userId };
  }
  if (isOAuthPrincipal(grantor)) return { type: "oauth_app", id: grantor.oauth.app.id };
  if (grantor.user) return { type: "user", id: grantor.user.id };
  return { type: "api_key", id: grantor.keyId };
}
