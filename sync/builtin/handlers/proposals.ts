import { isAppError } from "../../../core/errors.ts";
import type { ProposedAction } from "../../planner.ts";
import type { ResourceName } from "../../tools/resources.ts";
import { enginesOf, Refusal, type PlanContext } from "../context.ts";
import { remember } from "../subjects.ts";
import type { Answer, Item } from "../types.ts";

/**
 * What every write shares: the records "it", "them" or "the second one" point to in the last
 * reply, proposing (never applying) a change, and the reply that says it waits for approval.
 */

const ALL = /\b(?:them|these|those|all of them|them all|each of them|every one of them)\b/;
const ONE = /\b(?:it|this|that|this one|that one|him|her|his|their|its|she|he|they)\b/;

/** The records of `resource` the message points to in the last reply, if it points to any. */
export function referenced(ctx: PlanContext, resource: ResourceName): Item[] | undefined {
  const memory = ctx.memory;
  if (!memory) return undefined;
  const items = (memory.list?.items ?? []).filter((item) => item.resource === resource);
  const ordinal = ctx.analysis.entities.ordinal;
  if (ordinal !== undefined) {
    const all = memory.list?.items ?? [];
    const item = ordinal === -1 ? all[all.length - 1] : all[ordinal - 1];
    return item && item.resource === resource ? [item] : undefined;
  }
  const lower = ctx.analysis.norm.lower;
  if (ALL.test(lower) && items.length > 0) return items.slice(0, 10);
  if (ONE.test(lower)) {
    if (memory.focus?.resource === resource) return [memory.focus];
    if (items.length === 1) return items;
    if (memory.slots.subject?.resource === resource) {
      const { id, label } = memory.slots.subject;
      return [{ resource, id, label }];
    }
  }
  return undefined;
}

/** Fails early, before any lookup, when the key may not make this kind of change at all. */
export function assertMayWrite(ctx: PlanContext, tool: string, args: Record<string, unknown>): void {
  const refused = ctx.turn.refusedTools.find((candidate) => candidate.name === tool);
  if (!refused) return;
  throw new Refusal(enginesOf(refused, args), "write");
}

export interface Attempt {
  tool: string;
  args: Record<string, unknown>;
  /** Names the record in an error: "INV-000030". */
  label: string;
}

/** Proposes each change; a change the tool refuses (already paid, wrong state) is said, not proposed. */
export async function proposeAll(
  ctx: PlanContext,
  attempts: readonly Attempt[],
  intent: string,
): Promise<Answer> {
  const proposed: ProposedAction[] = [];
  const problems: string[] = [];
  for (const attempt of attempts) {
    try {
      proposed.push(await ctx.propose(attempt.tool, attempt.args));
    } catch (error) {
      if (!isAppError(error) || error.code === "insufficient_scope") throw error;
      problems.push(`${attempt.label}: ${error.message}`);
    }
  }
  return proposalAnswer(ctx, proposed, problems, intent);
}

export function proposalAnswer(
  ctx: PlanContext,
  proposed: readonly ProposedAction[],
  problems: readonly string[],
  intent: string,
): Answer {
  const parts: string[] = [];
  if (proposed.length === 1) {
    parts.push(`I've prepared this change; approve it to apply: **${proposed[0]!.preview}**`);
  } else if (proposed.length > 1) {
    const lines = proposed.map((action) => `- ${action.preview}`).join("\n");
    parts.push(`I've prepared ${proposed.length} changes; approve them to apply:\n\n${lines}`);
  }
  if (problems.length > 0) {
    const lead = proposed.length > 0 ? "I did not prepare these:" : "I can't prepare that change:";
    parts.push(`${lead}\n\n${problems.map((problem) => `- ${problem}`).join("\n")}`);
  }
  if (proposed.length > 0) parts.push("Nothing changes until it is approved.");
  const memory = remember(ctx, `write:${intent}`);
  return { reply: parts.join("\n\n"), memory, ...(proposed.length === 0 ? { failed: true } : {}) };
}

/** A question back instead of a guess: nothing is proposed. */
export function ask(ctx: PlanContext, question: string, intent: string, items?: Item[]): Answer {
  const memory = remember(ctx, `ask:${intent}`, {
    ...(items && items.length > 0
      ? {
          list: {
            resource: items[0]!.resource,
            filters: {},
            total: items.length,
            shown: items.length,
            items,
          },
        }
      : {}),
  });
  return { reply: question, memory };
}
