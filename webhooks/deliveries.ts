import { z } from "zod";
import { AppError, rfc3339, type Clock } from "../core/index.ts";
import {
  rfcOrNull,
  selectPage,
  SqlWhere,
  type ListQuery,
  type Page,
  type ResourceDefinition,
} from "../engines/index.ts";
import type { Queryable, Row, Store } from "../store/index.ts";
import { notifyWorkers } from "./delivery-queries.ts";

/**
 * Deliveries and attempts as the API shows them, and the operations on messages:
 * retry one delivery, recover every failed one of an endpoint since a time. Every
 * query is scoped by organization: another organization's id is a 404.
 */

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

export const WebhookDeliverySchema = z
  .object({
    id: z.string().meta({ example: "whd_3kTqZ9" }),
    object: z.literal("webhook_delivery"),
    endpoint_id: z.string(),
    event_id: z.string().meta({ description: "The message: its id is the webhook-id header" }),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable().meta({ description: "When pending: the next attempt" }),
    last_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const WebhookAttemptSchema = z
  .object({
    id: z.string().meta({ example: "wha_3kTqZ9" }),
    object: z.literal("webhook_attempt"),
    delivery_id: z.string(),
    endpoint_id: z.string(),
    attempt: z.number().int().meta({ description: "1 for the first attempt" }),
    started_at: z.string(),
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable().meta({ description: "Null when no response came" }),
    response_headers: z.record(z.string(), z.string()).nullable(),
    response_body: z.string().nullable().meta({ description: "The first 20 KB" }),
    error: z
      .string()
      .nullable()
      .meta({ description: "timeout, connection refused or reset, blocked address, non-2xx status…" }),
  })
  .meta({ id: "WebhookAttempt" });
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

export const WebhookRecoverSchema = z
  .object({
    since: z.iso
      .datetime({ offset: true })
      .meta({ description: "Re-send every failed delivery created at or after this instant (RFC 3339)" }),
  })
  .strict()
  .meta({ id: "WebhookRecover" });

export const WebhookRecoverResultSchema = z
  .object({
    object: z.literal("webhook_recovery"),
    endpoint_id: z.string(),
    since: z.string(),
    requeued: z.number().int().meta({ description: "How many failed deliveries are due again now" }),
  })
  .meta({ id: "WebhookRecovery" });
export type WebhookRecovery = z.infer<typeof WebhookRecoverResultSchema>;

/** List parameters: `status` (one or a comma list); newest first. */
export const DELIVERY_LIST = {
  filters: { status: { kind: "enum", values: DELIVERY_STATUSES } },
  sorts: { created_at: "created_at" },
} as const satisfies Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

export const ATTEMPT_LIST = {
  filters: {},
  sorts: { created_at: "started_at" },
} as const satisfies Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

export function renderDelivery(row: Row): WebhookDelivery {
  return {
    id: row.id as string,
    object: "webhook_delivery",
    endpoint_id: row.endpoint_id as string,
    event_id: row.event_id as string,
    event_type: row.event_type as string,
    status: row.status as WebhookDelivery["status"],
    attempts: row.attempts as number,
    next_attempt_at: rfcOrNull(row.next_attempt_at),
    last_attempt_at: rfcOrNull(row.last_attempt_at),
    last_status_code: (row.last_status_code as number | null) ?? null,
    last_error: (row.last_error as string | null) ?? null,
    created_at: rfc3339(row.created_at as Date),
    updated_at: rfc3339(row.updated_at as Date),
  };
}

export function renderAttempt(row: Row): WebhookAttempt {
  return {
    id: row.id as string,
    object: "webhook_attempt",
    delivery_id: row.delivery_id as string,
    endpoint_id: row.endpoint_id as string,
    attempt: row.attempt as number,
    started_at: rfc3339(row.started_at as Date),
    duration_ms: row.duration_ms as number,
    status_code: (row.status_code as number | null) ?? null,
    response_headers: (row.response_headers as Record<string, string> | null) ?? null,
    response_body: (row.response_body as string | null) ?? null,
    error: (row.error as string | null) ?? null,
  };
}

export interface WebhookDeliveryService {
  listForEndpoint(orgId: string, endpointId: string, query: ListQuery): Promise<Page<WebhookDelivery>>;
  listForEvent(orgId: string, eventId: string, query: ListQuery): Promise<Page<WebhookDelivery>>;
  get(orgId: string, id: string): Promise<WebhookDelivery>;
  attempts(orgId: string, id: string, query: ListQuery): Promise<Page<WebhookAttempt>>;
  /** Due now, whatever its status; one more attempt, then the endpoint's schedule from there. */
  retry(orgId: string, id: string): Promise<WebhookDelivery>;
  /** Every failed delivery of the endpoint created since `since`, due now. */
  recover(orgId: string, endpointId: string, since: Date): Promise<WebhookRecovery>;
}

export function createWebhookDeliveryService(options: {
  store: Store;
  clock: Clock;
}): WebhookDeliveryService {
  const { store, clock } = options;

  const listDeliveries = async (where: SqlWhere, query: ListQuery) => {
    const statuses = query.filters.status;
    if (statuses?.length) where.add(`status = ANY(${where.bind(statuses)}::text[])`);
    const order = query.sort.descending ? "DESC" : "ASC";
    const orderBy = `created_at ${order}, id ${order}`;
    return selectPage(store, { from: "webhook_deliveries", where, orderBy }, query, renderDelivery);
  };

  return {
    async listForEndpoint(orgId, endpointId, query) {
      await endpointOf(store, orgId, endpointId);
      const where = new SqlWhere();
      where.add(`org_id = ${where.bind(orgId)}`);
      where.add(`endpoint_id = ${where.bind(endpointId)}`);
      return listDeliveries(where, query);
    },

    async listForEvent(orgId, eventId, query) {
      const [event] = await store.query("SELECT 1 FROM events WHERE org_id = $1 AND id = $2", [
        orgId,
        eventId,
      ]);
      if (!event) throw new AppError("not_found", `No such event: '${eventId}'`);
      const where = new SqlWhere();
      where.add(`org_id = ${where.bind(orgId)}`);
      where.add(`event_id = ${where.bind(eventId)}`);
      return listDeliveries(where, query);
    },

    async get(orgId, id) {
      return renderDelivery(await deliveryOf(store, orgId, id));
    },

    async attempts(orgId, id, query) {
      await deliveryOf(store, orgId, id);
      const where = new SqlWhere();
      where.add(`org_id = ${where.bind(orgId)}`);
      where.add(`delivery_id = ${where.bind(id)}`);
      const order = query.sort.descending ? "DESC" : "ASC";
      const orderBy = `attempt ${order}`;
      return selectPage(store, { from: "webhook_attempts", where, orderBy }, query, renderAttempt);
    },

    retry(orgId, id) {
      return store.transaction(async (tx) => {
        const delivery = await deliveryOf(tx, orgId, id, true);
        await enabledEndpoint(tx, orgId, delivery.endpoint_id as string);
        const [row] = await tx.query(
          `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $3::timestamptz,
             updated_at = $3::timestamptz
           WHERE org_id = $1 AND id = $2 RETURNING *`,
          [orgId, id, clock.now().toISOString()],
        );
        await notifyWorkers(tx);
        return renderDelivery(row!);
      });
    },

    recover(orgId, endpointId, since) {
      return store.transaction(async (tx) => {
        await enabledEndpoint(tx, orgId, endpointId);
        const rows = await tx.query(
          `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $4::timestamptz,
             updated_at = $4::timestamptz
           WHERE org_id = $1 AND endpoint_id = $2 AND status = 'failed' AND created_at >= $3::timestamptz
           RETURNING 1`,
          [orgId, endpointId, since.toISOString(), clock.now().toISOString()],
        );
        if (rows.length > 0) await notifyWorkers(tx);
        return {
          object: "webhook_recovery" as const,
          endpoint_id: endpointId,
          since: rfc3339(since),
          requeued: rows.length,
        };
      });
    },
  };
}

async function deliveryOf(db: Queryable, orgId: string, id: string, lock = false): Promise<Row> {
  const [row] = await db.query(
    `SELECT * FROM webhook_deliveries WHERE org_id = $1 AND id = $2${lock ? " FOR UPDATE" : ""}`,
    [orgId, id],
  );
  if (!row) throw new AppError("not_found", `No such webhook_delivery: '${id}'`);
  return row;
}

async function endpointOf(db: Queryable, orgId: string, id: string): Promise<Row> {
  const [row] = await db.query("SELECT id, enabled FROM webhook_endpoints WHERE org_id = $1 AND id = $2", [
    orgId,
    id,
  ]);
  if (!row) throw new AppError("not_found", `No such webhook_endpoint: '${id}'`);
  return row;
}

/** Re-sending to a disabled endpoint would only close the delivery again: enable it first. */
async function enabledEndpoint(db: Queryable, orgId: string, id: string): Promise<void> {
  const endpoint = await endpointOf(db, orgId, id);
  if (!endpoint.enabled) {
    throw new AppError(
      "conflict",
      `Webhook endpoint '${id}' is disabled; enable it (PATCH enabled: true) first`,
    );
  }
}
