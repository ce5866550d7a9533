import {
  AppError,
  newId,
  rfc3339,
  targetUrlProblem,
  type Clock,
  type FieldError,
  type SecretBox,
  type TargetPolicy,
} from "../core/index.ts";
import {
  likePattern,
  mergeMetadata,
  previousAttributes,
  recordEvents,
  selectPage,
  SqlWhere,
  type Actor,
  type ListQuery,
  type Page,
  type ResourceDefinition,
} from "../engines/index.ts";
import type { Queryable, Row, Store } from "../store/index.ts";
import {
  renderWebhookEndpoint,
  SECRET_ROTATION_OVERLAP_MS,
  signingSecrets,
  type WebhookEndpointRow,
} from "./endpoint-row.ts";
import type {
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  WebhookTestDelivery,
} from "./endpoint-schemas.ts";
import { generateSecret, shownSecret, type SigningScheme } from "./signing.ts";

// The row, its rendering and its signing secrets are shared with the delivery side.
export { renderWebhookEndpoint, SECRET_ROTATION_OVERLAP_MS, signingSecrets, type WebhookEndpointRow };

export interface WebhookEndpointServiceOptions {
  store: Store;
  clock: Clock;
  box: SecretBox;
  /** Every kind in the event catalog (GET /v1/event_types). */
  eventTypes: readonly string[];
  policy: TargetPolicy;
}

/** List filters beyond the common ones: `enabled` (true|false). Sorted by `created_at`. */
export const WEBHOOK_ENDPOINT_LIST = {
  filters: { enabled: { kind: "boolean" } },
  sorts: { created_at: "created_at" },
} as const satisfies Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

/**
 * Reading an endpoint's signing secret takes what rotating it takes, `webhooks:write`: whoever
 * holds the secret can sign deliveries the organization's own receivers accept, which is more than
 * a read-only credential may do. (A v1a endpoint's public key is no secret, but one rule for both
 * schemes keeps the check independent of the endpoint.) The API route and the dashboard's Reveal
 * both ask this.
 */
export const SIGNING_SECRET_ACCESS = "write" as const;

/** The changes record their event (`webhook_endpoint.created|updated|deleted`) by `actor`. */
export interface WebhookEndpointService {
  list(orgId: string, query: ListQuery): Promise<Page<WebhookEndpoint>>;
  get(orgId: string, id: string): Promise<WebhookEndpoint>;
  create(orgId: string, input: WebhookEndpointCreate, actor: Actor): Promise<WebhookEndpointWithSecret>;
  update(orgId: string, id: string, patch: WebhookEndpointUpdate, actor: Actor): Promise<WebhookEndpoint>;
  delete(orgId: string, id: string, actor: Actor): Promise<void>;
  /** `whsec_…`, or for v1a the `whpk_…` public key receivers verify with. */
  secret(orgId: string, id: string): Promise<{ secret: string }>;
  /** Records `webhook_endpoint.updated` (previous_attributes.previous_secret_expires_at); no secret. */
  rotateSecret(orgId: string, id: string, actor: Actor): Promise<WebhookEndpointWithSecret>;
  sendTest(orgId: string, id: string): Promise<WebhookTestDelivery>;
}

/**
 * Webhook endpoints of one organization at a time: every query is scoped by
 * `org_id`, every change records its event in the same transaction.
 */
export function createWebhookEndpointService(options: WebhookEndpointServiceOptions): WebhookEndpointService {
  const { store, clock, box } = options;
  const known = new Set(options.eventTypes);
  const families = new Set(options.eventTypes.map((type) => `${type.split(".")[0]}.*`));

  const validate = (input: WebhookEndpointUpdate) => {
    const errors: FieldError[] = [];
    const problem = input.url === undefined ? undefined : targetUrlProblem(input.url, options.policy);
    if (problem) errors.push({ param: "url", code: "invalid_url", message: problem });
    for (const [index, type] of (input.event_types ?? []).entries()) {
      if (known.has(type) || families.has(type)) continue;
      const message = `unknown event type '${type}'; see GET /v1/event_types`;
      errors.push({ param: `event_types[${index}]`, code: "unknown_event_type", message });
    }
    if (errors.length > 0) {
      throw new AppError("validation_failed", `${errors[0]!.param}: ${errors[0]!.message}`, { errors });
    }
  };

  return {
    async list(orgId, query) {
      const where = listWhere(orgId, query);
      const order = query.sort.descending ? "DESC" : "ASC";
      const orderBy = `created_at ${order}, id ${order}`;
      return selectPage(store, { from: "webhook_endpoints", where, orderBy }, query, renderWebhookEndpoint);
    },

    async get(orgId, id) {
      return renderWebhookEndpoint(await selectEndpoint(store, orgId, id, false));
    },

    create(orgId, input, actor) {
      validate(input);
      const scheme = input.signing_scheme ?? "v1";
      const secret = generateSecret(scheme);
      return store.transaction(async (tx) => {
        const now = clock.now();
        const rows = await tx.query(
          `INSERT INTO webhook_endpoints (id, org_id, url, description, event_types, enabled, disabled_reason,
             signing_scheme, secret, retry_policy, rate_limit_per_s, headers, metadata, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10::jsonb, $11, $12::jsonb, $13::jsonb,
             $14::timestamptz, $14::timestamptz)
           RETURNING *`,
          [
            newId("we"),
            orgId,
            input.url,
            input.description ?? null,
            unique(input.event_types ?? []),
            input.enabled ?? true,
            input.enabled === false ? "manual" : null,
            scheme,
            box.seal(secret.signing),
            input.retry_policy ?? null,
            input.rate_limit_per_s ?? null,
            input.headers ?? {},
            input.metadata ?? {},
            now.toISOString(),
          ],
        );
        const endpoint = renderWebhookEndpoint(rows[0]!);
        await recordEvents(tx, orgId, now, [{ type: "webhook_endpoint.created", object: endpoint, actor }]);
        return { ...endpoint, secret: secret.shown };
      });
    },

    update(orgId, id, patch, actor) {
      validate(patch);
      return store.transaction(async (tx) => {
        const now = clock.now();
        const current = await selectEndpoint(tx, orgId, id, true);
        const rows = await tx.query(
          `UPDATE webhook_endpoints SET url = $3, description = $4, event_types = $5::text[], enabled = $6,
             disabled_reason = $7, failing_since = $8::timestamptz, retry_policy = $9::jsonb,
             rate_limit_per_s = $10, headers = $11::jsonb, metadata = $12::jsonb, updated_at = $13::timestamptz
           WHERE org_id = $1 AND id = $2 RETURNING *`,
          [orgId, id, ...updatedColumns(current, patch), now.toISOString()],
        );
        return recordUpdate(tx, { orgId, now, actor }, current, rows[0]!);
      });
    },

    delete(orgId, id, actor) {
      return store.transaction(async (tx) => {
        const current = await selectEndpoint(tx, orgId, id, true);
        await tx.query("DELETE FROM webhook_endpoints WHERE org_id = $1 AND id = $2", [orgId, id]);
        const object = renderWebhookEndpoint(current);
        await recordEvents(tx, orgId, clock.now(), [{ type: "webhook_endpoint.deleted", object, actor }]);
      });
    },

    async secret(orgId, id) {
      const row = await selectEndpoint(store, orgId, id, false);
      return { secret: shownSecret(box.open(row.secret as string)) };
    },

    rotateSecret(orgId, id, actor) {
      return store.transaction(async (tx) => {
        const now = clock.now();
        const current = await selectEndpoint(tx, orgId, id, true);
        const secret = generateSecret(current.signing_scheme as SigningScheme);
        const rows = await tx.query(
          `UPDATE webhook_endpoints SET previous_secret = secret, secret = $3,
             previous_secret_expires_at = $4::timestamptz, updated_at = $5::timestamptz
           WHERE org_id = $1 AND id = $2 RETURNING *`,
          [
            orgId,
            id,
            box.seal(secret.signing),
            new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS).toISOString(),
            now.toISOString(),
          ],
        );
        return {
          ...(await recordUpdate(tx, { orgId, now, actor }, current, rows[0]!)),
          secret: secret.shown,
        };
      });
    },

    sendTest(orgId, id) {
      return store.transaction(async (tx) => {
        const now = clock.now();
        const row = await selectEndpoint(tx, orgId, id, false);
        if (!row.enabled) {
          throw new AppError("conflict", `Webhook endpoint '${id}' is disabled; enable it to send a test`);
        }
        const object = renderWebhookEndpoint(row);
        const [eventId] = await recordEvents(tx, orgId, now, [{ type: "webhook_endpoint.test", object }]);
        return insertTestDelivery(tx, orgId, id, eventId!, now);
      });
    },
  };
}

/** The event fan-out skips the test kind (0009_webhooks.sql): its one delivery is made here. */
async function insertTestDelivery(
  tx: Queryable,
  orgId: string,
  endpointId: string,
  eventId: string,
  now: Date,
): Promise<WebhookTestDelivery> {
  const deliveryId = newId("whd");
  await tx.query(
    `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, next_attempt_at,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'webhook_endpoint.test', $5::timestamptz, $5::timestamptz, $5::timestamptz)`,
    [deliveryId, orgId, endpointId, eventId, now.toISOString()],
  );
  // Workers LISTEN on this channel; the notification is delivered at commit.
  await tx.query("SELECT pg_notify('tessera_webhooks', '')");
  return {
    id: deliveryId,
    object: "webhook_delivery",
    endpoint_id: endpointId,
    event_id: eventId,
    event_type: "webhook_endpoint.test",
    status: "pending",
    created_at: rfc3339(now),
  };
}

async function selectEndpoint(db: Queryable, orgId: string, id: string, lock: boolean): Promise<Row> {
  const rows = await db.query(
    `SELECT * FROM webhook_endpoints WHERE org_id = $1 AND id = $2${lock ? " FOR UPDATE" : ""}`,
    [orgId, id],
  );
  if (!rows[0]) throw new AppError("not_found", `No such webhook_endpoint: '${id}'`);
  return rows[0];
}

/** Records `webhook_endpoint.updated` by `actor` with previous_attributes, unless nothing visible changed. */
async function recordUpdate(
  tx: Queryable,
  change: { orgId: string; now: Date; actor: Actor },
  before: Row,
  after: Row,
): Promise<WebhookEndpoint> {
  const [old, updated] = [renderWebhookEndpoint(before), renderWebhookEndpoint(after)];
  const changed = previousAttributes(old, updated);
  if (Object.keys(changed).length > 0) {
    await recordEvents(tx, change.orgId, change.now, [
      { type: "webhook_endpoint.updated", object: updated, previousAttributes: changed, actor: change.actor },
    ]);
  }
  return updated;
}

/**
 * The columns after a patch, in the UPDATE's order. Disabling by hand records why;
 * enabling clears the reason and the failure run, so the endpoint starts afresh.
 */
function updatedColumns(row: Row, patch: WebhookEndpointUpdate): unknown[] {
  const current = row as unknown as WebhookEndpointRow;
  const enabled = patch.enabled ?? current.enabled;
  const reenabled = enabled && !current.enabled;
  const disabledReason = enabled ? null : current.enabled ? "manual" : current.disabled_reason;
  return [
    patch.url ?? current.url,
    patch.description === undefined ? current.description : patch.description,
    patch.event_types === undefined ? current.event_types : unique(patch.event_types),
    enabled,
    disabledReason,
    reenabled ? null : (current.failing_since?.toISOString() ?? null),
    patch.retry_policy === undefined ? current.retry_policy : patch.retry_policy,
    patch.rate_limit_per_s === undefined ? current.rate_limit_per_s : patch.rate_limit_per_s,
    patch.headers ?? current.headers,
    mergeMetadata(current.metadata, patch.metadata) ?? current.metadata,
  ];
}

function listWhere(orgId: string, query: ListQuery): SqlWhere {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  const enabled = query.filters.enabled?.[0];
  if (enabled !== undefined) where.add(`enabled = ${where.bind(enabled === "true")}`);
  if (query.q) {
    const pattern = where.bind(likePattern(query.q));
    where.add(`(url ILIKE ${pattern} OR description ILIKE ${pattern})`);
  }
  const bounds = [
    ["created_at >", query.createdAfter],
    ["created_at <", query.createdBefore],
    ["updated_at >", query.updatedAfter],
    ["updated_at <", query.updatedBefore],
  ] as const;
  for (const [condition, at] of bounds) {
    if (at) where.add(`${condition} ${where.bind(at.toISOString())}::timestamptz`);
  }
  return where;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
