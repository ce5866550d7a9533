import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import {
  SYNC_INTERACTION_STATUSES,
  SyncActionSchema,
  SyncChatSchema,
  SyncConversationSchema,
  SyncConversationWithTurnsSchema,
  SyncInteractionSchema,
  type SyncCaller,
  type SyncService,
} from "../../sync/index.ts";
import type { Logger } from "../../core/index.ts";
import type { AppEnv } from "../env.ts";
import { json, listOf } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { asAppError, problemParts, requestIdOf } from "../problem.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation } from "./declare.ts";

/** Interactions filter by conversation and status; sorted by creation, newest first by default. */
const INTERACTION_LIST = {
  filters: {
    conversation_id: { kind: "equals" as const },
    status: { kind: "enum" as const, values: SYNC_INTERACTION_STATUSES },
  },
  sorts: { created_at: "created_at" },
};
/** Conversations: the most recently active first, unless `sort` says otherwise. */
const CONVERSATION_LIST = {
  filters: {},
  sorts: { updated_at: "updated_at", created_at: "created_at" },
  defaultSort: "-updated_at",
};

/** The credential talking to SYNC, as the service knows it. */
function callerOf(c: Context<AppEnv>): SyncCaller {
  const principal = c.get("principal");
  return {
    orgId: principal.orgId,
    scopes: principal.scopes,
    credential: principal.user
      ? { type: "user", id: principal.user.id }
      : { type: "api_key", id: principal.keyId },
    principal,
  };
}

/**
 * `/v1/sync`: chat with SYNC (`sync:read`: asking changes nothing), approve or reject what it
 * proposed (`sync:write`, and the approving key must be able to make the change itself), and
 * the audit record: conversations and interactions.
 */
export function syncRoutes(sync: SyncService, log: Logger): OpenAPIHono<AppEnv> {
  const actionParams = idParams("action", "act");
  const decisions = [
    ["approve", (caller: SyncCaller, id: string) => sync.approve(caller, id)],
    ["reject", (caller: SyncCaller, id: string) => sync.reject(caller, id)],
  ] as const;

  return declareRoutes({ tags: ["sync"], scope: "sync" }, [
    operation({
      method: "post",
      path: "/chat",
      operationId: "sync.chat",
      summary: "Ask SYNC",
      description:
        "Needs sync:read, and each tool SYNC uses is checked against the key's own engine scopes. Answers a `sync.interaction`; changes come back as proposed actions to approve. With `Accept: text/event-stream` the reply streams: `delta` events ({text}), then one `action` event per proposed action, then `interaction` with the whole object.",
      // Asking changes nothing: a read, though a POST.
      scope: { name: "sync", access: "read" },
      body: SyncChatSchema,
      ok: {
        200: {
          description: "The interaction (JSON), or its stream (text/event-stream)",
          content: {
            "application/json": { schema: SyncInteractionSchema },
            "text/event-stream": { schema: z.string() },
          },
        },
      },
      // `conversation_id` may name no conversation of the organization.
      errors: { 404: true },
      handler: async (c) => {
        const body = parseBody(c, SyncChatSchema);
        const caller = callerOf(c);
        if (!(c.req.header("accept") ?? "").includes("text/event-stream")) {
          return c.json(await sync.chat(caller, body));
        }
        // What would refuse the message (too long, an unknown or full conversation) is a status, not an event.
        await sync.admit(caller, body);
        return streamSSE(c, async (stream) => {
          let deltas = Promise.resolve();
          const onDelta = (text: string) => {
            deltas = deltas.then(() => stream.writeSSE({ event: "delta", data: JSON.stringify({ text }) }));
          };
          try {
            const interaction = await sync.chat(caller, body, onDelta);
            await deltas;
            for (const action of interaction.actions) {
              await stream.writeSSE({ event: "action", id: action.id, data: JSON.stringify(action) });
            }
            await stream.writeSSE({
              event: "interaction",
              id: interaction.id,
              data: JSON.stringify(interaction),
            });
          } catch (error) {
            await deltas;
            const problem = problemParts(asAppError(error, requestIdOf(c), log), requestIdOf(c));
            await stream.writeSSE({ event: "error", data: problem.body.trim() });
          }
        });
      },
    }),
    ...decisions.map(([verb, decide]) =>
      operation({
        method: "post",
        path: `/actions/{id}/${verb}`,
        operationId: `sync_actions.${verb}`,
        summary: verb === "approve" ? "Approve and run a proposed action" : "Reject a proposed action",
        description:
          verb === "approve"
            ? "Needs sync:write and the write scope of the engine the action changes. Answers the action `completed` (result: the changed object) or `failed` (error: the problem). Single-use; 409 once decided or expired."
            : "Needs sync:write. Answers the action `rejected`; 409 once decided or expired.",
        params: actionParams,
        ok: { 200: json(SyncActionSchema, "The decided action") },
        errors: { 409: "Already decided, or expired" },
        handler: async (c) => c.json(await decide(callerOf(c), c.req.valid("param").id)),
      }),
    ),
    operation({
      method: "get",
      path: "/actions/{id}",
      operationId: "sync_actions.retrieve",
      summary: "Retrieve an action",
      params: actionParams,
      ok: { 200: json(SyncActionSchema, "The action") },
      handler: async (c) => c.json(await sync.getAction(c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "get",
      path: "/interactions",
      operationId: "sync_interactions.list",
      summary: "List interactions, newest first: who asked what, what SYNC read, proposed and answered",
      list: INTERACTION_LIST,
      ok: { 200: json(listOf(SyncInteractionSchema), "A page of interactions") },
      handler: async (c) => {
        const query = c.req.valid("query");
        return c.json(
          await sync.listInteractions(c.var.principal.orgId, {
            ...query,
            ...(query.filters.conversation_id ? { conversationId: query.filters.conversation_id[0]! } : {}),
            ...(query.filters.status ? { statuses: query.filters.status as never } : {}),
          }),
        );
      },
    }),
    operation({
      method: "get",
      path: "/interactions/{id}",
      operationId: "sync_interactions.retrieve",
      summary: "Retrieve an interaction",
      params: idParams("interaction", "sint"),
      ok: { 200: json(SyncInteractionSchema, "The interaction") },
      handler: async (c) => c.json(await sync.getInteraction(c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "get",
      path: "/conversations",
      operationId: "sync_conversations.list",
      summary: "List conversations, most recently active first",
      list: CONVERSATION_LIST,
      ok: { 200: json(listOf(SyncConversationSchema), "A page of conversations") },
      handler: async (c) => c.json(await sync.listConversations(c.var.principal.orgId, c.req.valid("query"))),
    }),
    operation({
      method: "get",
      path: "/conversations/{id}",
      operationId: "sync_conversations.retrieve",
      summary: "Retrieve a conversation with its interactions in order",
      params: idParams("conversation", "conv"),
      ok: { 200: json(SyncConversationWithTurnsSchema, "The conversation") },
      handler: async (c) =>
        c.json(await sync.getConversation(c.var.principal.orgId, c.req.valid("param").id)),
    }),
  ]);
}
