import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
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
import { listQuerySchema, parseListQuery } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import {
  BEARER,
  COMMON_ERRORS,
  declareRoute,
  IdParam,
  json,
  jsonRequest,
  listOf,
  NOT_FOUND,
  WRITE_ERRORS,
} from "../openapi.ts";
import { asAppError, problemParts, requestIdOf } from "../problem.ts";
import { idParam, parseBody } from "../validate.ts";

const DOC = { tags: ["sync"], security: BEARER };
const CONFLICT = {
  409: {
    description: "Already decided, or expired",
    content: { "application/problem+json": { schema: z.unknown() } },
  },
};

/** Interactions filter by conversation and status; sorted by creation, newest first by default. */
const INTERACTION_LIST = {
  filters: {
    conversation_id: { kind: "equals" as const },
    status: { kind: "enum" as const, values: SYNC_INTERACTION_STATUSES },
  },
  sorts: { created_at: "created_at" },
};
const CONVERSATION_LIST = { filters: {}, sorts: { updated_at: "updated_at", created_at: "created_at" } };

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
  const app = new OpenAPIHono<AppEnv>();
  const read = requireScope("sync", "read");
  const write = requireScope("sync", "write");

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/chat",
      operationId: "sync.chat",
      summary: "Ask SYNC",
      description:
        "Needs sync:read, and each tool SYNC uses is checked against the key's own engine scopes. Answers a `sync.interaction`; changes come back as proposed actions to approve. With `Accept: text/event-stream` the reply streams: `delta` events ({text}), then one `action` event per proposed action, then `interaction` with the whole object.",
      middleware: read,
      request: { body: jsonRequest(SyncChatSchema) },
      responses: {
        200: {
          description: "The interaction (JSON), or its stream (text/event-stream)",
          content: {
            "application/json": { schema: SyncInteractionSchema },
            "text/event-stream": { schema: z.string() },
          },
        },
        ...WRITE_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => {
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
  );

  for (const [verb, decide] of [
    ["approve", (caller: SyncCaller, id: string) => sync.approve(caller, id)],
    ["reject", (caller: SyncCaller, id: string) => sync.reject(caller, id)],
  ] as const) {
    declareRoute(
      app,
      createRoute({
        ...DOC,
        method: "post",
        path: `/actions/{id}/${verb}`,
        operationId: `sync_actions.${verb}`,
        summary: verb === "approve" ? "Approve and run a proposed action" : "Reject a proposed action",
        description:
          verb === "approve"
            ? "Needs sync:write and the write scope of the engine the action changes. Answers the action `completed` (result: the changed object) or `failed` (error: the problem). Single-use; 409 once decided or expired."
            : "Needs sync:write. Answers the action `rejected`; 409 once decided or expired.",
        middleware: write,
        request: { params: IdParam },
        responses: {
          200: json(SyncActionSchema, "The decided action"),
          ...WRITE_ERRORS,
          ...NOT_FOUND,
          ...CONFLICT,
        },
      }),
      async (c) => c.json(await decide(callerOf(c), idParam(c, "action"))),
    );
  }

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/actions/{id}",
      operationId: "sync_actions.retrieve",
      summary: "Retrieve an action",
      middleware: read,
      request: { params: IdParam },
      responses: { 200: json(SyncActionSchema, "The action"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await sync.getAction(c.get("principal").orgId, idParam(c, "action"))),
  );

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/interactions",
      operationId: "sync_interactions.list",
      summary: "List interactions, newest first: who asked what, what SYNC read, proposed and answered",
      middleware: read,
      request: { query: listQuerySchema(INTERACTION_LIST) },
      responses: { 200: json(listOf(SyncInteractionSchema), "A page of interactions"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, INTERACTION_LIST);
      return c.json(
        await sync.listInteractions(c.get("principal").orgId, {
          ...query,
          ...(query.filters.conversation_id ? { conversationId: query.filters.conversation_id[0]! } : {}),
          ...(query.filters.status ? { statuses: query.filters.status as never } : {}),
        }),
      );
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/interactions/{id}",
      operationId: "sync_interactions.retrieve",
      summary: "Retrieve an interaction",
      middleware: read,
      request: { params: IdParam },
      responses: { 200: json(SyncInteractionSchema, "The interaction"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await sync.getInteraction(c.get("principal").orgId, idParam(c, "interaction"))),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/conversations",
      operationId: "sync_conversations.list",
      summary: "List conversations, most recently active first",
      middleware: read,
      request: { query: listQuerySchema(CONVERSATION_LIST) },
      responses: { 200: json(listOf(SyncConversationSchema), "A page of conversations"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const params = new URL(c.req.url).searchParams;
      if (!params.has("sort")) params.set("sort", "-updated_at");
      return c.json(
        await sync.listConversations(c.get("principal").orgId, parseListQuery(params, CONVERSATION_LIST)),
      );
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/conversations/{id}",
      operationId: "sync_conversations.retrieve",
      summary: "Retrieve a conversation with its interactions in order",
      middleware: read,
      request: { params: IdParam },
      responses: {
        200: json(SyncConversationWithTurnsSchema, "The conversation"),
        ...COMMON_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => c.json(await sync.getConversation(c.get("principal").orgId, idParam(c, "conversation"))),
  );
  return app;
}
