import { z } from "zod";
import { MetadataSchema } from "../engines/index.ts";
import { SIGNING_SCHEMES } from "./signing.ts";

/**
 * The shapes of `/v1/webhook_endpoints` at the edge. What needs the operator's
 * configuration or the event catalog (the URL's scheme and host, the event type
 * names) is checked by the service in webhooks/endpoints.ts.
 */

const MAX_DELAY_S = 7 * 24 * 3600;
export const MAX_RETRY_ATTEMPTS = 50;
export const MAX_CUSTOM_HEADERS = 20;
const MAX_HEADER_VALUE_CHARS = 1_000;

const delaySeconds = z.number().int().min(1).max(MAX_DELAY_S);

/**
 * Per-endpoint retry policy: an explicit schedule (delays after the 1st, 2nd… attempt;
 * its length + 1 is the number of attempts) or exponential backoff with a cap and a
 * number of attempts. Null means the default schedule (webhooks/backoff.ts).
 *
 * @example
 *   { "schedule_s": [5, 300, 1800] }
 *   { "exponential": { "base_s": 10, "cap_s": 3600 }, "max_attempts": 12 }
 */
export const RetryPolicySchema = z
  .object({
    schedule_s: z
      .array(delaySeconds)
      .min(1)
      .max(MAX_RETRY_ATTEMPTS - 1)
      .optional(),
    exponential: z.object({ base_s: delaySeconds, cap_s: delaySeconds }).strict().optional(),
    max_attempts: z.number().int().min(1).max(MAX_RETRY_ATTEMPTS).optional(),
  })
  .strict()
  .superRefine((policy, ctx) => {
    if (!policy.schedule_s === !policy.exponential) {
      ctx.addIssue({ code: "custom", message: "give exactly one of schedule_s or exponential" });
    }
    if (policy.schedule_s && policy.max_attempts !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["max_attempts"],
        message: "applies to exponential only; a schedule's length sets its attempts",
      });
    }
    if (policy.exponential && policy.max_attempts === undefined) {
      ctx.addIssue({ code: "custom", path: ["max_attempts"], message: "is required with exponential" });
    }
    if (policy.exponential && policy.exponential.cap_s < policy.exponential.base_s) {
      ctx.addIssue({ code: "custom", path: ["exponential", "cap_s"], message: "must be at least base_s" });
    }
  })
  .meta({ id: "WebhookRetryPolicy" });
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;

// RFC 9110 §5.6.2 token characters.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
// Visible ASCII and inner spaces or tabs: no CR, LF or NUL can split a header (RFC 9110 §5.5).
const HEADER_VALUE = /^[\x21-\x7e]([\t\x20-\x7e]*[\x21-\x7e])?$/;
/** Set by Tessera or by the connection itself (RFC 9110 §7.6.1 hop-by-hop), never by the endpoint. */
const RESERVED_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "content-type",
  "content-encoding",
  "expect",
]);

export const CustomHeadersSchema = z
  .record(z.string(), z.string())
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_CUSTOM_HEADERS) {
      ctx.addIssue({ code: "custom", message: `at most ${MAX_CUSTOM_HEADERS} headers` });
    }
    const seen = new Set<string>();
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      const problem = !HEADER_NAME.test(name)
        ? "is not a valid header name"
        : RESERVED_HEADERS.has(lower) || lower.startsWith("webhook-")
          ? "is set by Tessera or the connection and cannot be overridden"
          : seen.has(lower)
            ? "is given twice (header names are case-insensitive)"
            : value.length > MAX_HEADER_VALUE_CHARS
              ? `value must be at most ${MAX_HEADER_VALUE_CHARS} characters`
              : !HEADER_VALUE.test(value)
                ? "value must be visible ASCII, without line breaks or surrounding spaces"
                : undefined;
      if (problem) ctx.addIssue({ code: "custom", path: [name], message: problem });
      seen.add(lower);
    }
  })
  .meta({ description: "Extra headers sent with every delivery (not hop-by-hop, not webhook-*)." });

const EventTypesSchema = z.array(z.string().min(1).max(100)).max(200).meta({
  description: "Event kinds to receive (see GET /v1/event_types), or families like invoice.*; empty: all",
});

const UrlSchema = z.string().min(1).max(2048).meta({ example: "https://example.com/webhooks/tessera" });

export const WebhookEndpointSchema = z
  .object({
    id: z.string().meta({ example: "we_3kTqZ9" }),
    object: z.literal("webhook_endpoint"),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z
      .enum(["manual", "gone", "failing"])
      .nullable()
      .meta({ description: "manual (PATCH), gone (the target answered 410), failing (failed for days)" }),
    signing_scheme: z.enum(SIGNING_SCHEMES),
    retry_policy: RetryPolicySchema.nullable(),
    rate_limit_per_s: z.number().int().nullable(),
    headers: z.record(z.string(), z.string()),
    failing_since: z.string().nullable(),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .meta({ description: "After a rotation: until when the previous secret signs too" }),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointCreateSchema = z
  .object({
    url: UrlSchema,
    description: z.string().max(500).nullable().optional(),
    event_types: EventTypesSchema.optional(),
    enabled: z.boolean().optional(),
    signing_scheme: z
      .enum(SIGNING_SCHEMES)
      .optional()
      .meta({ description: "v1 (HMAC, default) or v1a (ed25519)" }),
    retry_policy: RetryPolicySchema.nullable().optional(),
    rate_limit_per_s: z.number().int().min(1).max(10_000).nullable().optional(),
    headers: CustomHeadersSchema.optional(),
    metadata: MetadataSchema.optional(),
  })
  .strict()
  .meta({ id: "WebhookEndpointCreate" });
export type WebhookEndpointCreate = z.infer<typeof WebhookEndpointCreateSchema>;

export const WebhookEndpointUpdateSchema = WebhookEndpointCreateSchema.omit({ signing_scheme: true })
  .partial()
  .strict()
  .meta({ id: "WebhookEndpointUpdate" });
export type WebhookEndpointUpdate = z.infer<typeof WebhookEndpointUpdateSchema>;

/** The endpoint as created or rotated: with its secret, shown this once. */
export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().meta({
    description: "whsec_… (v1), or the whpk_… public key (v1a). Store it now; GET …/secret shows it again.",
  }),
}).meta({ id: "WebhookEndpointWithSecret" });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecretSchema>;

export const WebhookSecretSchema = z
  .object({ secret: z.string().meta({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }) })
  .meta({ id: "WebhookEndpointSecret" });

export const WebhookTestDeliverySchema = z
  .object({
    id: z.string().meta({ example: "whd_3kTqZ9", description: "The delivery of the test event" }),
    object: z.literal("webhook_delivery"),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: z.literal("webhook_endpoint.test"),
    status: z.literal("pending"),
    created_at: z.string(),
  })
  .meta({ id: "WebhookTestDelivery" });
export type WebhookTestDelivery = z.infer<typeof WebhookTestDeliverySchema>;
