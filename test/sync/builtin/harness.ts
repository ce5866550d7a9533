import { AppError, FakeClock, isoDate } from "../../../core/index.ts";
import {
  createOrganization,
  createResourceServices,
  refreshSnapshot,
  seedDemo,
  type AnyResourceService,
} from "../../../engines/index.ts";
import { createBuiltinPlanner } from "../../../sync/builtin/index.ts";
import type { HistoryTurn, PlanOutcome, PlannerTurn, ProposedAction } from "../../../sync/planner.ts";
import { prepareWriteTool, runReadTool, SYNC_TOOLS, toolAllowed } from "../../../sync/tools/catalog.ts";
import type { ToolContext } from "../../../sync/tools/types.ts";
import { migrate, type Store } from "../../../store/index.ts";
import { openMigratedPglite } from "../../helpers/pglite-image.ts";
import { addFixtures, NOW } from "./fixtures.ts";

/**
 * A real organization for the built-in planner's tests: migrated PGlite, the demo seed plus
 * fixtures.ts, and a snapshot. The planner's `call` and `propose` run the real tools with the
 * caller's scopes, as the service does; a proposal is prepared, never applied.
 */

export { NOW };

export interface AskOptions {
  scopes?: string[];
  history?: HistoryTurn[];
}

export interface Asked {
  outcome: PlanOutcome;
  reply: string;
  proposals: ProposedAction[];
  emitted: string;
  calls: Array<{ name: string; args: unknown }>;
}

export interface Harness {
  store: Store;
  orgId: string;
  now: Date;
  today: string;
  services: Map<string, AnyResourceService>;
  /** Ids of the records the fixtures added, by role. */
  fixtures: Record<string, string>;
  ask(message: string, options?: AskOptions): Promise<Asked>;
  /** Several messages in turn, each with the history (and memory) of those before. */
  converse(messages: readonly string[], options?: Omit<AskOptions, "history">): Promise<Asked[]>;
  /** SQL with the organization's id as $1. */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  dispose(): Promise<void>;
}

let actions = 0;

/** One turn as the service builds it: the tools the scopes allow, the ones they refuse. */
function turnFor(
  ctx: ToolContext,
  message: string,
  history: HistoryTurn[],
  asked: Omit<Asked, "outcome" | "reply">,
) {
  const toolNamed = (name: string) => {
    const tool = SYNC_TOOLS.find((candidate) => candidate.name === name);
    if (!tool) throw new AppError("not_found", `There is no tool '${name}'`);
    if (!toolAllowed(tool, ctx.scopes))
      throw new AppError("insufficient_scope", `this credential cannot use ${name}`);
    return tool;
  };
  const turn: PlannerTurn = {
    message,
    history,
    tools: SYNC_TOOLS.filter((tool) => toolAllowed(tool, ctx.scopes)),
    refusedTools: SYNC_TOOLS.filter((tool) => !toolAllowed(tool, ctx.scopes)),
    call: async <R>(name: string, args: unknown) => {
      asked.calls.push({ name, args });
      return (await runReadTool(toolNamed(name), args, ctx)) as { result: R; sources: [] };
    },
    propose: async (name, args) => {
      const prepared = await prepareWriteTool(toolNamed(name), args, ctx);
      const action = {
        id: `act_test${++actions}`,
        tool: name,
        arguments: prepared.arguments,
        preview: prepared.preview,
      };
      asked.proposals.push(action);
      return action;
    },
    emit: (delta) => {
      asked.emitted += delta;
    },
    now: ctx.now,
    today: ctx.today,
  };
  return turn;
}

export async function createHarness(): Promise<Harness> {
  const store = await openMigratedPglite();
  await migrate(store);
  const clock = new FakeClock(NOW);
  const org = await createOrganization(store, { name: `sync-builtin-${Date.now()}`, plan: "free" });
  await seedDemo(store, clock, org.id, 1);
  const services = createResourceServices(store, clock);
  const fixtures = await addFixtures(clock, services, org.id);
  await refreshSnapshot(store, clock, org.id);
  const now = new Date(NOW);
  const today = isoDate(now);
  const planner = createBuiltinPlanner();

  const ask = async (message: string, options: AskOptions = {}): Promise<Asked> => {
    const ctx: ToolContext = { orgId: org.id, scopes: options.scopes ?? ["*"], now, today, store, services };
    const asked = { proposals: [] as ProposedAction[], emitted: "", calls: [] as Asked["calls"] };
    const outcome = await planner.plan(turnFor(ctx, message, options.history ?? [], asked));
    return { ...asked, outcome, reply: outcome.reply };
  };

  const converse = async (messages: readonly string[], options: Omit<AskOptions, "history"> = {}) => {
    const history: HistoryTurn[] = [];
    const answers: Asked[] = [];
    for (const message of messages) {
      const asked = await ask(message, { ...options, history: [...history] });
      answers.push(asked);
      const actions = asked.proposals.map((action) => ({ ...action, status: "proposed" }));
      history.push({
        message,
        reply: asked.reply,
        sources: [],
        actions,
        memory: asked.outcome.memory ?? null,
      });
    }
    return answers;
  };

  return {
    store,
    orgId: org.id,
    now,
    today,
    services,
    fixtures,
    ask,
    converse,
    sql: <T>(text: string, params: unknown[] = []) => store.query(text, [org.id, ...params]) as Promise<T[]>,
    dispose: () => store.dispose(),
  };
}
