import { isAppError } from "../../core/errors.ts";
import type { PlannerTurn, ProposedAction } from "../planner.ts";
import type { Tool } from "../tools/types.ts";
import type { Analysis } from "./analysis.ts";
import type { Memory, Slots } from "./types.ts";

/**
 * What a handler works with: the turn, the analysed message, the memory of the turn before,
 * the slots, and tool calls that turn a missing scope into a `Refusal` naming the engine, so
 * the reply can say "this key cannot read finance data" instead of "nothing found".
 */

export type Engine = "finance" | "growth" | "talent";
const ENGINES: readonly Engine[] = ["finance", "growth", "talent"];

/** The caller's scopes rule out what was asked. */
export class Refusal extends Error {
  constructor(
    readonly engines: readonly Engine[],
    readonly access: "read" | "write",
  ) {
    super(`needs ${engines.map((engine) => `${engine}:${access}`).join(", ")}`);
    this.name = "Refusal";
  }
}

export interface PlanContext {
  turn: PlannerTurn;
  analysis: Analysis;
  /** What the planner kept from the turn before, when it was this planner's. */
  memory?: Memory;
  slots: Slots;
  /** Asked as a follow-up ("what about last month?"): the slots not named again come from memory. */
  followUp: boolean;
  read<R>(tool: string, args: Record<string, unknown>): Promise<R>;
  propose(tool: string, args: Record<string, unknown>): Promise<ProposedAction>;
}

/** The engines a tool call touches, as far as its own scope rule or error message tells. */
export function enginesOf(tool: Tool | undefined, args: unknown, message = ""): Engine[] {
  const family = tool?.scopeOf(args);
  if (family && (ENGINES as readonly string[]).includes(family)) return [family as Engine];
  const named = [...message.matchAll(/\b(finance|growth|talent):(?:read|write)\b/g)].map(
    (match) => match[1] as Engine,
  );
  if (named.length > 0) return [...new Set(named)];
  return (tool?.scopes ?? []).filter((scope): scope is Engine =>
    (ENGINES as readonly string[]).includes(scope),
  );
}

async function guarded<T>(
  turn: PlannerTurn,
  name: string,
  args: unknown,
  access: "read" | "write",
  run: () => Promise<T>,
): Promise<T> {
  const refused = turn.refusedTools.find((tool) => tool.name === name);
  if (refused) throw new Refusal(enginesOf(refused, args), access);
  try {
    return await run();
  } catch (error) {
    if (isAppError(error) && error.code === "insufficient_scope") {
      const tool = turn.tools.find((candidate) => candidate.name === name);
      throw new Refusal(enginesOf(tool, args, error.message), access);
    }
    throw error;
  }
}

export function createContext(
  turn: PlannerTurn,
  analysis: Analysis,
  slots: Slots,
  memory: Memory | undefined,
  followUp = false,
): PlanContext {
  return {
    turn,
    analysis,
    slots,
    followUp,
    ...(memory ? { memory } : {}),
    read: async <R>(name: string, args: Record<string, unknown>) =>
      guarded(turn, name, args, "read", async () => (await turn.call<R>(name, args)).result),
    propose: async (name, args) => guarded(turn, name, args, "write", () => turn.propose(name, args)),
  };
}
