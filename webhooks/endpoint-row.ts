import type { SecretBox } from "../core/index.ts";
import { baseFields, rfcOrNull } from "../engines/index.ts";
import type { Row } from "../store/index.ts";
import type { RetryPolicy, WebhookEndpoint } from "./endpoint-schemas.ts";
import type { SigningScheme } from "./signing.ts";

/** After a rotation the previous secret keeps signing this long (ARCHITECTURE.md, "Webhooks"). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** A `webhook_endpoints` row as the store returns it (see 0009_webhooks.sql). */
export interface WebhookEndpointRow {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: "manual" | "gone" | "failing" | null;
  signing_scheme: SigningScheme;
  /** Sealed (core/secret-box.ts); open it with the box. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  retry_policy: RetryPolicy | null;
  rate_limit_per_s: number | null;
  headers: Record<string, string>;
  failing_since: Date | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

/**
 * The plaintext secrets that sign a delivery now: the current one, and the previous
 * one while its rotation overlap lasts. Pass them to `signedHeaders`.
 *
 * @example
 *   const secrets = signingSecrets(row, clock.now(), box);
 *   const headers = signedHeaders({ secrets, id: event.id, now: clock.now(), body });
 */
export function signingSecrets(
  row: Pick<WebhookEndpointRow, "secret" | "previous_secret" | "previous_secret_expires_at">,
  now: Date,
  box: SecretBox,
): string[] {
  const secrets = [box.open(row.secret)];
  const expires = row.previous_secret_expires_at;
  if (row.previous_secret && expires && new Date(expires).getTime() > now.getTime()) {
    secrets.push(box.open(row.previous_secret));
  }
  return secrets;
}

export function renderWebhookEndpoint(row: Row): WebhookEndpoint {
  const r = row as unknown as WebhookEndpointRow;
  const { created_at, updated_at } = baseFields(r, "webhook_endpoint");
  return {
    id: r.id,
    object: "webhook_endpoint",
    url: r.url,
    description: r.description,
    event_types: r.event_types,
    enabled: r.enabled,
    disabled_reason: r.disabled_reason,
    signing_scheme: r.signing_scheme,
    retry_policy: r.retry_policy,
    rate_limit_per_s: r.rate_limit_per_s,
    headers: r.headers,
    failing_since: rfcOrNull(r.failing_since),
    previous_secret_expires_at: rfcOrNull(r.previous_secret_expires_at),
    metadata: r.metadata,
    created_at,
    updated_at,
  };
}
