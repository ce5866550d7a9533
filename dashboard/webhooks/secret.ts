import type { Hono } from "hono";
import { AppError } from "../../core/index.ts";
import { SIGNING_SECRET_ACCESS } from "../../webhooks/index.ts";
import type { AppEnv } from "../../api/env.ts";
import { requires } from "../gates.ts";
import type { DashboardParts } from "../parts.ts";
import { sessionActor } from "../session.ts";
import { renderEndpoint } from "./endpoints.ts";
import { ENDPOINT_ID, notFound, refusalOf } from "./views.ts";

/**
 * The signing secret. Revealing is a POST, so the secret is only ever in a response body: never in a
 * URL, a history entry or a GET a cache could keep (these pages are `no-store`). It needs what
 * `GET /v1/webhook_endpoints/{id}/secret` needs (`SIGNING_SECRET_ACCESS`: write). Rotating is the API's rotation: a
 * new secret, the previous one signing too for 24 hours; it needs `webhooks:write`.
 */
export function secretRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const { deps, posted } = parts;
  const service = deps.webhookEndpoints;

  const reveals = requires("webhooks", SIGNING_SECRET_ACCESS);
  app.post(`/webhooks/${ENDPOINT_ID}/secret`, posted, reveals, async (c) => {
    const { signed } = c.var;
    const orgId = signed.session.orgId;
    const id = c.req.param("id");
    const endpoint = await refusalOf(() => service.get(orgId, id));
    if (endpoint instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    const { secret } = await service.secret(orgId, id);
    return renderEndpoint(c, parts, signed, endpoint, { secret });
  });

  app.post(`/webhooks/${ENDPOINT_ID}/rotate`, posted, requires("webhooks", "write"), async (c) => {
    const { signed } = c.var;
    const actor = sessionActor(signed.session);
    const rotated = await refusalOf(() =>
      service.rotateSecret(signed.session.orgId, c.req.param("id"), actor),
    );
    if (rotated instanceof AppError) return notFound(c, parts, signed, "/webhooks");
    const { secret, ...endpoint } = rotated;
    return renderEndpoint(c, parts, signed, endpoint, { secret, rotated: true });
  });
}
