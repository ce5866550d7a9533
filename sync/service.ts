import {
  AppError,
  isAppError,
  isoDate,
  newId,
  silentLogger,
  traced,
  type Clock,
  type Logger,
} from "../core/index.ts";
import type { SyncConfig } from "../core/index.ts";
import type { Store } from "../store/index.ts";
import type { KeyPrincipal } from "../engines/tenancy/api-keys.ts";
import { recordEvents } from "../engines/events/outbox.ts";
import type { AnyResourceService } from "../engines/resource.ts";
import type { ListQuery } from "../engines/list-query.ts";
import type { Page } from "../engines/paging.ts";
import type { HistoryTurn, Planner, PlannerTurn, ProposedAction } from "./planner.ts";
import * as q from "./queries.ts";
import {
  renderAction,
  renderConversation,
  renderInteraction,
  type ActionRow,
  type InteractionRow,
} from "./rows.ts";
import { functionTool, type FunctionToolPort } from "./tools/functions.ts";
import type { CredentialRef, SyncAction, SyncChat, SyncConversation, SyncInteraction } from "./schema.ts";
import {
  createToolCatalog,
  prepareWriteTool,
  runReadTool,
  toolAllowed,
  type ToolCatalog,
} from "./tools/catalog.ts";
import { assertToolScope } from "./tools/catalog.ts";
import type { Source, ToolContext, WriteTool } from "./tools/types.ts";

/**
 * One tool call as a span (tracing on; a child of the request's): the tool's name, what was done
 * with it (a read, a write proposed or applied) and the planner. Never its arguments or output:
 * they are the organization's data and the words of the message.
 */
function toolSpan<T>(
  tool: string,
  use: "read" | "propose" | "apply",
  planner: string | undefined,
  run: () => Promise<T>,
): Promise<T> {
  return traced(
    `sync.tool ${tool}`,
    { "tessera.sync.tool": tool, "tessera.sync.tool.use": use, "tessera.sync.planner": planner },
    run,
  );
}

/** Who is talking to SYNC: the organization, the credential's scopes, and the credential itself. */
export interface SyncCaller {
  orgId: string;
  scopes: readonly string[];
  credential: CredentialRef;
  /** The authenticated key itself: a function tool runs as it. */
  principal?: KeyPrincipal;
}

export interface SyncServiceOptions {
  store: Store;
  clock: Clock;
  services: Map<string, AnyResourceService>;
  config: SyncConfig;
  planner: Planner;
  log?: Logger;
  /** The organization's functions offered as tools (runtime/ provides them); none without. */
  functionTools?: FunctionToolPort;
}

export interface SyncService {
  /** Refuses, before any work, a message `chat` would refuse: too long (413), an unknown (404) or full (409) conversation. */
  admit(caller: SyncCaller, body: SyncChat): Promise<void>;
  /** Answers a message; `onDelta` receives the reply as it is written (for Server-Sent Events). */
  chat(caller: SyncCaller, body: SyncChat, onDelta?: (text: string) => void): Promise<SyncInteraction>;
  approve(caller: SyncCaller, actionId: string): Promise<SyncAction>;
  reject(caller: SyncCaller, actionId: string): Promise<SyncAction>;
  getAction(orgId: string, id: string): Promise<SyncAction>;
  getInteraction(orgId: string, id: string): Promise<SyncInteraction>;
  listInteractions(orgId: string, query: q.InteractionListQuery): Promise<Page<SyncInteraction>>;
  getConversation(orgId: string, id: string): Promise<SyncConversation & { interactions: SyncInteraction[] }>;
  listConversations(orgId: string, query: ListQuery): Promise<Page<SyncConversation>>;
}

/** Earlier turns handed to a planner: enough for follow-ups, not the whole history of a long chat. */
const HISTORY_TURNS = 10;

/**
 * SYNC: a planner answers each message with the read tools and proposes writes; the proposals
 * are stored as `sync.action`s that run only when a credential of the same organization, one
 * that could make the change itself, approves them. Every interaction is kept: the audit record.
 */
export function createSyncService(options: SyncServiceOptions): SyncService {
  const { store, clock, config, planner } = options;
  const log = options.log ?? silentLogger;
  const ownTools = createToolCatalog();
  /** SYNC's own tools, and the organization's function tools as its functions stand now. */
  const catalogFor = async (orgId: string): Promise<ToolCatalog> => {
    const port = options.functionTools;
    if (!port) return ownTools;
    return createToolCatalog((await port.list(orgId)).map((spec) => functionTool(port, spec)));
  };
  const toolContext = (caller: SyncCaller, now: Date): ToolContext => ({
    orgId: caller.orgId,
    scopes: caller.scopes,
    now,
    today: isoDate(now),
    store,
    services: options.services,
    ...(caller.principal ? { principal: caller.principal } : {}),
  });

  async function interactionsOf(orgId: string, rows: InteractionRow[], now: Date) {
    const actions = await q.selectActionsOf(
      store,
      orgId,
      rows.map((row) => row.id),
    );
    return rows.map((row) =>
      renderInteraction(
        row,
        actions
          .filter((action) => action.interaction_id === row.id)
          .map((action) => renderAction(action, now)),
      ),
    );
  }

  async function history(orgId: string, conversationId: string, now: Date): Promise<HistoryTurn[]> {
    const rows = await q.selectTurns(store, orgId, conversationId, HISTORY_TURNS);
    const rendered = await interactionsOf(orgId, rows, now);
    return rendered.map((interaction, index) => ({
      message: interaction.message,
      reply: interaction.reply,
      sources: interaction.sources,
      actions: interaction.actions.map(({ id, tool, arguments: args, status, preview }) => ({
        id,
        tool,
        arguments: args,
        status,
        preview,
      })),
      memory: rows[index]!.memory ?? null,
    }));
  }

  async function admit(caller: SyncCaller, body: SyncChat): Promise<void> {
    if (body.message.length > config.maxMessageChars) {
      throw new AppError("payload_too_large", `message is longer than ${config.maxMessageChars} characters`);
    }
    if (body.conversation_id) {
      const conversation = await q.selectConversation(store, caller.orgId, body.conversation_id);
      if (!conversation) throw new AppError("not_found", `No such conversation: '${body.conversation_id}'`);
      if (Number(conversation.turns) >= config.maxTurns) {
        throw new AppError(
          "conflict",
          `this conversation has ${config.maxTurns} turns, its limit: start a new one`,
        );
      }
    }
  }

  async function chat(
    caller: SyncCaller,
    body: SyncChat,
    onDelta?: (text: string) => void,
  ): Promise<SyncInteraction> {
    await admit(caller, body);
    const now = clock.now();
    const ctx = toolContext(caller, now);
    const catalog = await catalogFor(caller.orgId);
    const sources: Source[] = [];
    const proposals: ProposedAction[] = [];
    const addSources = (found: Source[]) => {
      for (const source of found) {
        if (!sources.some((s) => s.object === source.object && s.id === source.id)) sources.push(source);
      }
    };
    const toolNamed = (name: string) => {
      const tool = catalog.get(name);
      if (!tool) throw new AppError("validation_failed", `there is no tool named '${name}'`);
      return tool;
    };
    const turn: PlannerTurn = {
      message: body.message,
      history: body.conversation_id ? await history(caller.orgId, body.conversation_id, now) : [],
      tools: catalog.tools.filter((tool) => toolAllowed(tool, caller.scopes)),
      refusedTools: catalog.tools.filter((tool) => !toolAllowed(tool, caller.scopes)),
      async call(name, args) {
        const output = await toolSpan(name, "read", planner.kind, () =>
          runReadTool(toolNamed(name), args, ctx),
        );
        addSources(output.sources);
        return output as never;
      },
      async propose(name, args) {
        const prepared = await toolSpan(name, "propose", planner.kind, () =>
          prepareWriteTool(toolNamed(name), args, ctx),
        );
        addSources(prepared.sources);
        const proposal = {
          id: newId("act"),
          tool: name,
          arguments: prepared.arguments,
          preview: prepared.preview,
        };
        proposals.push(proposal);
        return proposal;
      },
      emit: (text) => onDelta?.(text),
      now,
      today: ctx.today,
    };
    const outcome = await planner.plan(turn).catch((error: unknown) => {
      log.error("sync planner failed", { error: error instanceof Error ? error.message : String(error) });
      proposals.length = 0;
      return {
        reply: "SYNC could not answer this message: something went wrong on the server.",
        failed: true,
        understood: false,
      };
    });
    const status = outcome.failed ? "failed" : proposals.length > 0 ? "requires_approval" : "completed";
    // When the model failed and the built-in planner answered, the built-in planner is what answered.
    const planned = {
      type: "fallback" in outcome && outcome.fallback ? ("builtin" as const) : planner.kind,
      ...("model" in outcome && outcome.model ? { model: outcome.model } : {}),
      ...("fallback" in outcome && outcome.fallback ? { fallback: outcome.fallback } : {}),
    };
    return store.transaction(async (tx) => {
      const conversationId = body.conversation_id ?? newId("conv");
      if (!body.conversation_id) {
        const title = body.message.length > 80 ? `${body.message.slice(0, 79)}…` : body.message;
        await q.insertConversation(tx, {
          id: conversationId,
          orgId: caller.orgId,
          title,
          createdBy: caller.credential,
          now,
        });
      }
      const turnNumber = await q.advanceConversation(tx, caller.orgId, conversationId, now);
      const row = await q.insertInteraction(tx, {
        id: newId("sint"),
        orgId: caller.orgId,
        conversationId,
        turn: turnNumber,
        message: body.message,
        reply: outcome.reply,
        status: outcome.failed ? "failed" : status,
        understood: outcome.understood !== false,
        planner: planned,
        sources,
        memory: "memory" in outcome ? outcome.memory : undefined,
        askedBy: caller.credential,
        now,
      });
      const actions: SyncAction[] = [];
      for (const [index, proposal] of (outcome.failed ? [] : proposals).entries()) {
        const actionRow = await q.insertAction(tx, {
          ...proposal,
          orgId: caller.orgId,
          interactionId: row.id,
          position: index + 1,
          expiresAt: new Date(now.getTime() + config.actionTtlMs),
          now,
        });
        actions.push(renderAction(actionRow, now));
      }
      await recordEvents(
        tx,
        caller.orgId,
        now,
        actions.map((action) => ({ type: "sync.action_proposed", object: action })),
      );
      return renderInteraction(row, actions);
    });
  }

  /** A proposal this caller may decide now, or the 404/403/409 that says why not. */
  async function decidable(caller: SyncCaller, actionId: string, now: Date, approving: boolean) {
    const row = await q.selectAction(store, caller.orgId, actionId);
    if (!row) throw new AppError("not_found", `No such action: '${actionId}'`);
    const tool = (await catalogFor(caller.orgId)).get(row.tool);
    if (approving && tool) assertToolScope(tool, row.arguments, toolContext(caller, now));
    const current = renderAction(row, now);
    if (current.status === "expired") {
      await q.expireAction(store, caller.orgId, actionId, now);
      throw new AppError("conflict", `action ${actionId} expired at ${current.expires_at}: ask SYNC again`);
    }
    if (current.status !== "proposed" || row.decided_at) {
      throw new AppError(
        "conflict",
        `action ${actionId} is already ${current.status === "proposed" ? "being decided" : current.status}`,
      );
    }
    const claimed = await q.claimAction(store, caller.orgId, actionId, caller.credential, now);
    if (!claimed) throw new AppError("conflict", `action ${actionId} was decided by another request`);
    return { row: claimed, tool };
  }

  async function finish(
    caller: SyncCaller,
    row: ActionRow,
    outcome: { status: "completed" | "rejected" | "failed"; result?: unknown; error?: unknown },
  ): Promise<SyncAction> {
    const now = clock.now();
    return store.transaction(async (tx) => {
      const finished = renderAction(await q.finishAction(tx, caller.orgId, row.id, outcome, now), now);
      await q.settleInteraction(tx, caller.orgId, row.interaction_id, now);
      await recordEvents(tx, caller.orgId, now, [
        { type: `sync.action_${outcome.status}`, object: finished },
      ]);
      return finished;
    });
  }

  return {
    admit,
    chat,
    async approve(caller, actionId) {
      const now = clock.now();
      const { row, tool } = await decidable(caller, actionId, now, true);
      if (!tool || tool.access !== "write") {
        return finish(caller, row, {
          status: "failed",
          error: { code: "not_found", message: `the tool ${row.tool} no longer exists` },
        });
      }
      try {
        const change = await toolSpan(tool.name, "apply", undefined, () =>
          (tool as WriteTool).apply(toolContext(caller, clock.now()), row.arguments),
        );
        return await finish(caller, row, { status: "completed", result: change.object });
      } catch (error) {
        if (!isAppError(error) || !error.isUserError)
          log.error("sync action failed", { action: actionId, tool: tool.name, error: String(error) });
        const problem =
          isAppError(error) && error.isUserError
            ? { code: error.code, message: error.message }
            : { code: "internal", message: "the change could not be made: an internal error" };
        return finish(caller, row, { status: "failed", error: problem });
      }
    },
    async reject(caller, actionId) {
      const { row } = await decidable(caller, actionId, clock.now(), false);
      return finish(caller, row, { status: "rejected" });
    },
    async getAction(orgId, id) {
      const row = await q.selectAction(store, orgId, id);
      if (!row) throw new AppError("not_found", `No such action: '${id}'`);
      return renderAction(row, clock.now());
    },
    async getInteraction(orgId, id) {
      const row = await q.selectInteraction(store, orgId, id);
      if (!row) throw new AppError("not_found", `No such interaction: '${id}'`);
      const [interaction] = await interactionsOf(orgId, [row], clock.now());
      return interaction!;
    },
    async listInteractions(orgId, query) {
      const page = await q.selectInteractionPage(store, orgId, query);
      return { data: await interactionsOf(orgId, page.data, clock.now()), meta: page.meta };
    },
    async getConversation(orgId, id) {
      const row = await q.selectConversation(store, orgId, id);
      if (!row) throw new AppError("not_found", `No such conversation: '${id}'`);
      const turns = await q.selectTurns(store, orgId, id, config.maxTurns);
      return { ...renderConversation(row), interactions: await interactionsOf(orgId, turns, clock.now()) };
    },
    listConversations: (orgId, query) => q.selectConversationPage(store, orgId, query),
  };
}
