import type { EventType } from "../engines/index.ts";
import { WebhookEndpointSchema } from "./endpoint-schemas.ts";

/** Event kinds about webhook endpoints themselves; their payloads never hold a secret. */
export const WEBHOOK_EVENT_TYPES: EventType[] = [
  {
    type: "webhook_endpoint.created",
    description: "A webhook endpoint was created.",
    object: WebhookEndpointSchema,
  },
  {
    type: "webhook_endpoint.updated",
    description: "A webhook endpoint changed (a secret rotation too); see previous_attributes.",
    object: WebhookEndpointSchema,
  },
  {
    type: "webhook_endpoint.deleted",
    description: "A webhook endpoint was deleted; the endpoint as it was.",
    object: WebhookEndpointSchema,
  },
  {
    type: "webhook_endpoint.disabled",
    description:
      "Tessera disabled a webhook endpoint: it answered 410 Gone, or failed continuously for days (disabled_reason).",
    object: WebhookEndpointSchema,
  },
  {
    type: "webhook_endpoint.test",
    description: "Sent by POST /v1/webhook_endpoints/{id}/test to that endpoint only.",
    object: WebhookEndpointSchema,
  },
];
